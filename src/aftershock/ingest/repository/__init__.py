"""The repository as the review reads it: the one place git runs (hardened, read-only), git's
output parsed, blobs through one cat-file process, a ref's tree and snapshot with bounded reads,
safe writes under a folder, and the commits aftershock writes itself."""
