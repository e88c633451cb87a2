"""bench/int8.py's command line and its section of RESULTS.md: models by name (any case,
comma-separated), several batch sizes, bad values refused as argparse errors (exit 2); the
section lands between its own markers and a rewrite replaces it, leaving the rest of the file.
Nothing is measured here (a run takes minutes: bench/README.md)."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from bench import int8, int8_report  # noqa: E402
from bench.report import INT8_BEGIN, INT8_END  # noqa: E402


def test_defaults_are_every_model_at_batch_one():
    args = int8.parse([])
    assert args.models == ["resnet50", "mobilenetv2", "bert"] and args.batch == [1]
    assert (args.repeat, args.threads, args.calibration, args.note) == (10, None, 4, "")
    assert (args.target, args.both_isas) == ("host", False)


def test_target_or_both_isas():
    assert int8.parse(["--target", "x86-64-v3"]).target == "x86-64-v3"
    assert int8.parse(["--both-isas"]).both_isas


def test_models_and_batches():
    args = int8.parse(["--models", "ResNet50, bert", "--batch", "1", "8", "--repeat", "3", "--threads", "2"])
    assert args.models == ["resnet50", "bert"] and args.batch == [1, 8]
    assert (args.repeat, args.threads) == (3, 2)


@pytest.mark.parametrize(
    "argv",
    [
        ["--models", "vgg"],
        ["--models", ","],
        ["--repeat", "0"],
        ["--batch", "0"],
        ["--threads", "0"],
        ["--target", "x86-64-v3", "--both-isas"],
    ],
)
def test_bad_arguments_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as exited:
        int8.parse(argv)
    assert exited.value.code == 2 and "error:" in capsys.readouterr().err


def test_section_between_its_markers(tmp_path):
    row = int8.Row(
        "HF ResNet-50 224² batch 1", {"Versa FP32": 0.09, "Versa INT8": 0.045, "ORT INT8": "failed: X"}
    )
    row.checks["Versa INT8"] = "0.4 · 19.00% · 100%"
    text = int8_report.section([row], "cmd", 2, (2.0, 1.0, 1.0), 10, 4, 52.0, "A busy machine.")
    assert text.startswith(INT8_BEGIN) and text.endswith(INT8_END) and "\nA busy machine.\n" in text
    assert "| HF ResNet-50 224² batch 1 | 90.0 | 45.0 | — | failed: X |" in text and "2.00x" in text
    path = tmp_path / "RESULTS.md"
    path.write_text("# kept\n")
    int8_report.write(path, text)
    int8_report.write(path, text.replace("90.0", "91.0"))
    written = path.read_text()
    assert written.startswith("# kept\n") and written.count(INT8_BEGIN) == 1 and "91.0" in written


def test_second_target_has_a_table_of_its_own():
    """--both-isas: Versa for x86-64-v3 in columns of its own, its ratios against the same peers'
    times; every system's output check in one table."""
    times = {
        "Versa FP32": 0.09,
        "Versa INT8": 0.03,
        "Versa FP32 x86-64-v3": 0.12,
        "Versa INT8 x86-64-v3": 0.06,
    }
    row = int8.Row("HF ResNet-50 224² batch 8", {**times, "ORT INT8": 0.045, "OpenVINO INT8 (QDQ)": 0.04})
    row.checks["Versa INT8 x86-64-v3"] = "0.4 · 19.00% · 100%"
    text = int8_report.section([row], "cmd", 2, (2.0, 1.0, 1.0), 10, 4, 52.0, "", ("host", "x86-64-v3"))
    assert "| HF ResNet-50 224² batch 8 | 90.0 | 30.0 | — | 45.0 | — | 40.0 | 3.00x | 1.50x | 1.33x |" in text
    assert "Versa compiled for `x86-64-v3` (ISA level x86-64-v3, AVX2, 256-bit vectors)" in text
    assert "| HF ResNet-50 224² batch 8 | 120.0 | 60.0 | 2.00x | 0.75x | 0.67x |" in text
    assert "| Versa INT8 x86-64-v3 |" in text and "| 0.4 · 19.00% · 100% |" in text


def test_avx2_rows_compare_with_openvino_held_to_avx2():
    """With OpenVINO's AVX2 times in the rows (--both-isas on an AVX-512 host), the x86-64-v3
    table shows them and its OpenVINO ratio is against them; ORT's stays its own code's."""
    times = {
        "Versa FP32 x86-64-v3": 0.12,
        "Versa INT8 x86-64-v3": 0.06,
        "ORT INT8": 0.045,
        "OpenVINO INT8 (QDQ)": 0.04,
        "OpenVINO FP32 AVX2": 0.1,
        "OpenVINO INT8 (QDQ) AVX2": 0.05,
    }
    row = int8.Row("HF ResNet-50 224² batch 1", times)
    row.above_avx2["OpenVINO INT8 (QDQ) AVX2"] = "ReduceMean jit_avx512_I8 (0.3% of the time)"
    text = int8_report.section([row], "cmd", 2, (2.0, 1.0, 1.0), 10, 4, 52.0, "", ("host", "x86-64-v3"))
    assert "| Versa INT8 x86-64-v3 ms | OpenVINO FP32 AVX2 ms | OpenVINO INT8 (QDQ) AVX2 ms |" in text
    assert "| HF ResNet-50 224² batch 1 | 120.0 | 60.0 | 100.0 | 50.0 | 2.00x | 0.75x | 0.83x |" in text
    assert "`ONEDNN_MAX_CPU_ISA=AVX2`" in text and "ONNX Runtime has no such switch" in text
    assert "OpenVINO INT8 (QDQ) AVX2: ReduceMean jit_avx512_I8 (0.3% of the time)." in text


def test_a_peer_held_to_avx2_is_checked_by_its_kernels_names():
    from bench.int8_isa_peer import wider_kernels

    assert wider_kernels(["brgconv_avx2_I8", "jit_avx2_I8", "ref_any", "undef"]) == []
    assert wider_kernels(["brgconv_avx512_1x1_I8", "jit_avx2_I8", "brgemm_amx_I8"]) == [
        "brgconv_avx512_1x1_I8",
        "brgemm_amx_I8",
    ]


def test_avx2_peers_join_only_an_avx2_target_on_an_avx512_host(monkeypatch):
    from versa import targets

    from bench import int8_systems

    monkeypatch.setattr(targets, "host", lambda: targets.resolve("x86-64-v4"))
    names = int8_systems.system_names(["host", "x86-64-v3"])
    assert names[-2:] == int8_systems.AVX2_PEERS
    assert not set(int8_systems.AVX2_PEERS) & set(int8_systems.system_names(["host"]))
    monkeypatch.setattr(targets, "host", lambda: targets.resolve("x86-64-v3"))
    assert not set(int8_systems.AVX2_PEERS) & set(int8_systems.system_names(["host", "x86-64-v3"]))
