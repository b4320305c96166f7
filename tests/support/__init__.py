"""What the tests share: the sandbox repository and its CLI runs (`harness`), the backends and the
faults the exactly-once tests run over, the queries and helpers of the GitHub double's tests, the
one-state walk, hostile and malformed inputs, the generated snapshot layouts, the grammars the
rendered Mermaid and workflow expressions are read with, and where the repository is (`paths`)."""
