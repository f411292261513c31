"""The strategy simulator: complete Nessie Hunt games on the same rules, with seeded dice and decks,
and equipment placed on the real board geometry (``nessie-companion simulate``)."""
