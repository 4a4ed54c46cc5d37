"""Jobs and deliveries: the embedded queue and RQ on Redis, what a job carries, running one, the
delivery ledger, the spool while the database is down, the reconciler, and which review of a pull
request wins."""
