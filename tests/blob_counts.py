"""A real blob reader that counts what it is asked for, for tests that bound a review's git reads."""

from aftershock.ingest.repository.blobs import BlobReader


class CountingReader(BlobReader):
    """A real blob reader that counts the blobs it is asked for."""

    def __init__(self, repo):
        super().__init__(repo)
        self.asked = 0

    def read_many(self, shas):
        shas = list(shas)
        self.asked += len(shas)
        return super().read_many(shas)
