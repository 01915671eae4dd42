"""The book layer: what a study hands its page (report, present, the comparison kit's tables, charts), the notebook
helpers (nb), the chapter registry and runner, the build, the Sphinx extension, the scaffold and anonymisation."""
