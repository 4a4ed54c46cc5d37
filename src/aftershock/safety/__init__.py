"""What keeps a review from leaking or being abused: which texts are credentials (credential_text), which
rendered texts are secret and must not be shown (secret_taint), the folder a test run may read
(sandbox), and owner-only files and folders for what aftershock writes (private_files)."""
