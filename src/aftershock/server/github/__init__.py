"""Speaking with GitHub: its REST calls, App authentication, webhook signatures, what a delivery
asks, chat commands, and fetching a pull request's refs."""
