"""report.html and index.html in a real headless Chromium (Debian's chromium and chromedriver,
which scripts/chromium.sh installs): they load with no SEVERE console message, show their
tables, the tables re-sort when a header is clicked, and every plot's image has decoded.
One browser for the whole module; skipped, saying what is missing, where there is none."""

import os
import shutil

import pytest
from optimizer_reports import full_report, import_failed_report, validation_failed_report
from versa.optimizer import index, report
from versa.optimizer.index import ModelResult

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def _missing() -> list[str]:
    missing = [path for path in (CHROMIUM, CHROMEDRIVER) if not os.access(path, os.X_OK)]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("the selenium package (pip install -e '.[test]')")
    return missing


@pytest.fixture(scope="module")
def browser():
    missing = _missing()
    if missing:
        pytest.skip(
            f"no headless Chromium to open the reports in: {', '.join(missing)} missing"
            " (bash scripts/chromium.sh installs Debian's chromium and chromium-driver)"
        )
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(argument)
    options.add_argument("--window-size=1280,2000")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """A batch as the pipeline leaves it: three reports and an index with a model that failed."""
    root = tmp_path_factory.mktemp("optimize")
    models = []
    for make in (full_report, validation_failed_report, import_failed_report):
        r = make()
        report.write_outputs(r, root / r["model"]["name"])
        models.append(ModelResult(r["model"]["name"], r, root / r["model"]["name"]))
    models.append(ModelResult("missing", step="import", message="could not open 'missing.onnx'"))
    index.write_index(models, root)
    yield root
    shutil.rmtree(root, ignore_errors=True)


def _open(browser, path) -> None:
    browser.get(path.as_uri())
    assert browser.execute_script("return document.readyState") == "complete"
    severe = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert not severe, severe


def _column(browser, table: str, column: int) -> list[str]:
    rows = f"document.querySelectorAll('#{table} tbody tr')"
    script = f"return Array.from({rows}).map(r => r.cells[{column}].innerText)"
    return browser.execute_script(script)


def _click(browser, table: str, title: str) -> str:
    """Click a header; returns the aria-sort it then has."""
    from selenium.webdriver.common.by import By

    header = browser.find_element(By.XPATH, f"//table[@id='{table}']/thead//th[normalize-space()='{title}']")
    header.click()
    return header.get_attribute("aria-sort")


def _images(browser) -> dict[str, int]:
    """Each figure's id and its image's naturalWidth once loaded (0: broken)."""
    return browser.execute_script(
        "return Object.fromEntries(Array.from(document.querySelectorAll('figure')).map("
        "f => [f.id, f.querySelector('img').complete ? f.querySelector('img').naturalWidth : 0]))"
    )


def test_the_report_renders_with_its_plots_and_tables(browser, pages):
    _open(browser, pages / "resnet18" / "report.html")
    assert browser.title == "Versa report: resnet18"
    headings = browser.execute_script(
        "return Array.from(document.querySelectorAll('h2')).map(h => h.innerText)"
    )
    assert headings == ["Summary", "Before / after", "Accuracy", "Partitions", "Per-layer profile",
                        "Memory", "What the compiler did", "Compile passes", "Steps"]  # fmt: skip
    images = _images(browser)
    assert set(images) == {"plot-before-after", "plot-layers", "plot-memory"}
    assert all(width > 0 for width in images.values()), images
    assert browser.execute_script("return document.scripts.length") == 1
    assert len(_column(browser, "accuracy-table", 0)) == 1
    assert _column(browser, "decisions", 0) == ["FUSION", "LAYOUT", "DECLINED"]


def test_the_layer_table_comes_by_time_and_re_sorts(browser, pages):
    _open(browser, pages / "resnet18" / "report.html")
    layers = sorted(full_report()["profile"]["layers"], key=lambda layer: -layer["ms"])
    kernels = [layer["kernel"] for layer in layers]
    assert _column(browser, "layers", 0) == kernels
    assert _click(browser, "layers", "Kernel") == "ascending"
    assert _column(browser, "layers", 0) == sorted(kernels)
    assert _click(browser, "layers", "Time") == "descending"
    assert _column(browser, "layers", 0) == kernels
    assert _click(browser, "layers", "Time") == "ascending"
    assert _column(browser, "layers", 0) == kernels[::-1]
    assert _click(browser, "layers", "Of limit") == "descending"
    rates = sorted(layers, key=lambda layer: -layer["percent_of_limit"])
    assert _column(browser, "layers", 0) == [layer["kernel"] for layer in rates]


def test_reports_with_null_sections_render(browser, pages):
    _open(browser, pages / "bert-tiny" / "report.html")
    assert set(_images(browser)) == {"plot-before-after"}
    assert _column(browser, "accuracy-table", 7) == ["no", "no"]
    _open(browser, pages / "weird<model>" / "report.html")
    assert _images(browser) == {}
    alert = browser.execute_script("return document.getElementById('errors').innerText")
    assert "no rule for onnx op 'Weird' <script>x</script>" in alert
    assert browser.execute_script("return document.scripts.length") == 1


def test_the_index_lists_every_model_and_links_their_reports(browser, pages):
    from selenium.webdriver.common.by import By

    _open(browser, pages / "index.html")
    assert _column(browser, "models", 0) == ["resnet18", "bert-tiny", "weird<model>", "missing"]
    assert _column(browser, "models", 1) == ["OK", "OK", "FAILED", "FAILED"]
    reasons = _column(browser, "models", 6)
    assert "no rule for onnx op 'Weird'" in reasons[2] and reasons[3].startswith("import:")
    images = _images(browser)
    assert set(images) == {"plot-speedups"} and images["plot-speedups"] > 0
    assert _click(browser, "models", "Model") == "ascending"
    assert _column(browser, "models", 0) == ["bert-tiny", "missing", "resnet18", "weird<model>"]
    assert _click(browser, "models", "Speed-up") == "descending"
    assert _column(browser, "models", 2)[2:] == ["—", "—"]  # unmeasured rows last
    browser.find_element(By.LINK_TEXT, "weird<model>").click()
    assert browser.title == "Versa report: weird<model>"
    assert not [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
