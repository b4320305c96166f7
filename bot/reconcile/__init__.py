"""One run: gather the inputs, decide the plan (pure), act on it through the GitHub port."""
