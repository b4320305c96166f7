"""Tests at perfbot's boundaries: the GitHub double and the live adapter against it, the workflows
and the action, the readers and the store under hostile and generated input, the lease reader, and
the rules that hold the code's shape (layers, pure core, function sizes, recipes, mutation config)."""
