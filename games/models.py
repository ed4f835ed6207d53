# Game, Seat, Move, state snapshots and the notification outbox arrive here (see design.md).
