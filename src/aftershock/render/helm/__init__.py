"""The Helm backends: the embedded SDK in bounded worker processes (their protocol and the worker
itself), the helm binary, the lanes that dispatch renders over them, and the values document both
read."""
