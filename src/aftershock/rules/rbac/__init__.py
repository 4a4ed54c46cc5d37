"""RBAC rules: what Roles, ClusterRoles and their bindings grant, judged on the change."""
