"""Helm rules: hooks and resource policies that change how `helm install` and `helm upgrade` behave."""
