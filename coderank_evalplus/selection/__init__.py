"""Selection after ranking: new evidence aimed at the programs still in contention (issue 54)."""
