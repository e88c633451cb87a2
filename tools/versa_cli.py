"""versa: Versa's umbrella command (`versa cache`, ...), one subcommand per tool module.

    versa cache info             the compile cache: folder, entries, size, limit
    versa cache clear            empty it
    versa -v SUBCOMMAND ...      log more (VERSA_LOG=info|debug sets the base level)

A subcommand is a module of `versa.tools` with `SUMMARY`, `add_arguments(parser)` and
`run(args) -> int`, registered by one line in SUBCOMMANDS. Its module is imported only to build
the parser, so it keeps heavy imports (torch, the tuner) inside `run`.
"""

import argparse
import importlib

from versa.tools.common import ArgumentParser, add_verbosity, configure_logging, tool_main

SUBCOMMANDS = {
    "cache": "versa.tools.versa_cache",
    "optimize": "versa.tools.versa_optimize",
}


def parse_args(argv: list[str]) -> tuple[argparse.Namespace, object]:
    parser = ArgumentParser(prog="versa", description=__doc__.splitlines()[0])
    add_verbosity(parser)
    commands = parser.add_subparsers(dest="command", required=True, metavar="SUBCOMMAND")
    modules = {}
    for name, path in SUBCOMMANDS.items():
        module = modules[name] = importlib.import_module(path)
        sub = commands.add_parser(name, help=module.SUMMARY, description=module.SUMMARY)
        sub.add_argument("-v", "--verbose", action="count", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
        module.add_arguments(sub)
    args = parser.parse_args(argv)
    return args, modules[args.command]


def run(argv: list[str]) -> int:
    args, module = parse_args(argv)
    configure_logging(args.verbose)
    return module.run(args)


def main() -> None:
    tool_main(run)


if __name__ == "__main__":
    main()
