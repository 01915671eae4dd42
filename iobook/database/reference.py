"""The curated reference tables of data/reference/ (file-system families, IO500 releases, the archive's runs, the
link rates of named networks; its README.md): the one place the package asks for one of them (iobook.database.families,
iobook.database.setups, iobook.database.io500_runs, iobook.database.networks).

The checkout keeps the only copy, in data/reference/ (the chapters digest the tables they read and those ingest
derives from: iobook.book.chapters.tables_digest). pyproject.toml maps the package `iobook.reference_data` to that
folder, so that a wheel (`pip install .`) carries the tables inside the installed package. A path relative to
this package's folder looked for site-packages/data/reference there (issue 37)."""
from importlib.resources import files
from importlib.util import find_spec
from pathlib import Path

PACKAGE = "iobook.reference_data"  # data/reference/ (pyproject.toml: [tool.setuptools.package-dir])
CHECKOUT = Path(__file__).resolve().parents[2] / "data" / "reference"


def path(name: str) -> Path:
    """The reference table `name` (e.g. "filesystems.csv"): the installed package's copy (a wheel's
    iobook/reference_data/), else the checkout's data/reference/, where the package is imported from a checkout:
    an editable install (setuptools' editable finder does not import a folder-only package mapped outside its
    parent's folder), or the checkout on sys.path."""
    if find_spec(PACKAGE) is None:
        return CHECKOUT / name
    return Path(str(files(PACKAGE).joinpath(name)))  # a wheel installs as files: a real path
