"""The web's store room: the SQL of matches, uploads and analyses (``database``), of accounts
(``accounts``, rated by the formula in ``ratings``), and the schema's Alembic revisions
(``migrations``)."""
