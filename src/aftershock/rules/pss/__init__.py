"""Pod Security Standards controls, baseline and restricted, one rule per control, judged on the change."""
