"""The use-cases that write (HackSoft styleguide): outbox, delivery, digests, preferences and
absences. Callers import from the submodules, e.g. notifications.services.outbox."""
