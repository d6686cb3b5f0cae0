# The documentation site (`make docs`; `make docs-check` in CI): the pages of docs/ as Markdown
# (MyST), and a sphinx-gallery whose examples are examples/gallery/, the seed's own script first.
# `make docs` copies this folder into the build tree and builds there, so that nothing generated
# lands in the source tree; CCTX_SOURCE_DIR names the repository, CCTX_DOCS_GALLERY=0 builds the
# gallery pages without running their scripts (CI: the site's structure and links, in seconds).
import os
import pathlib

SOURCE = pathlib.Path(os.environ.get("CCTX_SOURCE_DIR", pathlib.Path(__file__).resolve().parent.parent))
RUN_GALLERY = os.environ.get("CCTX_DOCS_GALLERY", "1") != "0"

project = "cctx"
author = "the cctx authors"
extensions = ["myst_parser", "sphinx_gallery.gen_gallery"]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "gallery/*.md5", "gallery/*.ipynb", "gallery/*.py", "gallery/*.zip"]
myst_heading_anchors = 3
html_theme = "alabaster"
html_title = "cctx: ComputeContext for ONNX"
# The pages link to files of the repository (tests/, sdk/, config/) that are not pages of the
# site: MyST cannot resolve them, and that is not an error of the site.
suppress_warnings = ["myst.xref_missing", "myst.header", "ref.myst"]


def _gallery_order(filename: str) -> str:
    # The seed's script first: the page cctx was born from.
    return "0" if filename == "plot_compute_context_memory.py" else "1" + filename


sphinx_gallery_conf = {
    "examples_dirs": str(SOURCE / "examples" / "gallery"),
    "gallery_dirs": "gallery",
    "filename_pattern": "/plot_",
    "plot_gallery": RUN_GALLERY,
    "within_subsection_order": lambda src_dir: _gallery_order,
    "download_all_examples": False,
    "remove_config_comments": True,
}


def _drop_missing_pages(app, docname, source):
    # docs/peers.md is written by `make peers`; until a run has written it, the index leaves it out.
    if docname == "index" and not (pathlib.Path(app.srcdir) / "peers.md").exists():
        source[0] = source[0].replace("\npeers\n", "\n")


def setup(app):
    app.connect("source-read", _drop_missing_pages)
