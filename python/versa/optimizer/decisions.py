"""What the compiler did to a model, as the report's `decisions`: the fusion groups versa-fuse
formed (members and sources), the layout changes versa-layout made (transposes it inserted
around convolutions), each read from the optimised versa IR, not from a log; and what it
declined, from the passes' missed remarks (`passes/common/remarks.py`): fusions versa-fuse did
not make, threads and packing a codegen strategy did not take (`declined`), kernels left to
plain loops (`fallback`), each with its reason, its numbers and its source location."""

from versa.mlir import ir
from versa.passes.common.remarks import MISSED, Remark
from versa.passes.common.source_names import source_names
from versa.signature import find_function


def _where(op: ir.Operation) -> str | None:
    names = source_names(op.location)
    return ", ".join(names) if names else None


def decisions(optimised: ir.Module) -> list[dict]:
    """The fusion groups and layout changes of `optimised` (versa IR after versa-optimize)."""
    found = []
    for op in find_function(optimised, None).regions[0].blocks[0].operations:
        op = op.operation
        if op.name == "versa.fused":
            members = [m.name.removeprefix("versa.") for m in op.regions[0].blocks[0].operations]
            members = [m for m in members if m != "yield"]
            kind = ir.StringAttr(op.attributes["kind"]).value if "kind" in op.attributes else "group"
            found.append(
                {
                    "kind": "fusion",
                    "subject": "+".join(members),
                    "message": f"{len(members)} ops fused into one kernel ({kind})",
                    "location": _where(op),
                }
            )
        elif (
            op.name in ("versa.conv2d", "versa.max_pool2d", "versa.avg_pool2d") and "layout" in op.attributes
        ):
            layout = ir.StringAttr(op.attributes["layout"]).value
            if layout != "NCHW":
                found.append(
                    {
                        "kind": "layout",
                        "subject": op.name.removeprefix("versa."),
                        "message": f"computed in {layout} (the target's layout), transposes at the edges",
                        "location": _where(op),
                    }
                )
    return found


def declined(said: list[Remark], pass_name: str | None = None) -> list[dict]:
    """The missed remarks in `said` (of `pass_name` only, where given) as decisions."""
    found = []
    for remark in said:
        if remark.kind != MISSED or pass_name not in (None, remark.pass_name):
            continue
        values = dict(remark.values)
        if "producer" in values:  # a fusion: producer into consumer
            subject = f"{_short(values['producer'])} → {_short(values.get('consumer', '?'))}"
        else:
            subject = str(values.get("op", remark.pass_name))
        numbers = ", ".join(f"{k}={v}" for k, v in remark.values if k not in ("producer", "consumer", "op"))
        names = source_names(remark.location)
        found.append(
            {
                "kind": "fallback" if remark.category == "fallback" else "declined",
                "subject": subject,
                "message": f"{remark.reason} ({numbers})" if numbers else remark.reason,
                "location": ", ".join(names) if names else None,
                "pass": remark.pass_name,
                "values": values,
            }
        )
    return found


def _short(name: str) -> str:
    return name.removeprefix("versa.")
