-- Each setup field with how many IO500 runs state it and the kinds of source that say so.
SELECT field, runs, sources FROM setup_fields_stated
