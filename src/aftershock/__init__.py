"""aftershock: reviews a change to a Helm/Kubernetes repository by rendering it at base and head."""

__version__ = "0.1.0"
