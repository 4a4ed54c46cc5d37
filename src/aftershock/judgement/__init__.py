"""What a review concluded: the judgement the rules and verdicts made of it, the review with that
judgement, and the review as the review state recorded it. A layer above the findings, verdicts and
configuration it holds, below the formats and the pipeline that read and make it."""
