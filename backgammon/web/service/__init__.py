"""The web's service room: the live matches and their commits (``server``), a web match over
``Match`` (``game``), the bots, reviews, analyses, uploads, hints, edits and rollouts, and the
one pool of worker processes they think in (``jobs``)."""
