from canasta_site.celery import app, beat_schedule


def test_tasks_are_acknowledged_late_one_at_a_time_without_results():
    assert app.conf.task_acks_late is True
    assert app.conf.worker_prefetch_multiplier == 1
    assert app.conf.task_ignore_result is True


def test_the_beat_schedule_comes_from_the_settings(settings):
    settings.CANASTA_SWEEP_SECONDS = 2
    settings.CANASTA_DIGEST_SECONDS = 600
    schedule = beat_schedule()
    assert schedule["sweep-outbox"]["task"] == "notifications.tasks.sweep_outbox"
    assert schedule["sweep-outbox"]["schedule"] == 2
    assert schedule["send-digests"]["schedule"] == 600
    assert set(app.tasks) >= {
        "notifications.tasks.deliver_outbox",
        "notifications.tasks.sweep_outbox",
        "notifications.tasks.send_digests",
    }


def test_the_deadline_sweep_is_scheduled_from_its_setting(settings):
    settings.CANASTA_DEADLINE_SWEEP_SECONDS = 30
    entry = beat_schedule()["sweep-deadlines"]
    assert entry["task"] == "games.tasks.sweep_deadlines"
    assert entry["schedule"] == 30


def _limits(task):
    soft = task.soft_time_limit or app.conf.task_soft_time_limit
    hard = task.time_limit or app.conf.task_time_limit
    return soft, hard


def test_every_task_has_a_soft_and_a_hard_time_limit():
    """A stuck task (a mail server or webhook receiver that never answers) is stopped: the
    soft limit raises in it, the hard one replaces the worker process."""
    import clients.tasks  # noqa: F401  (what the worker's autodiscovery imports)
    import games.tasks  # noqa: F401
    import notifications.tasks  # noqa: F401

    ours = [app.tasks[name] for name in app.tasks if not name.startswith("celery.")]
    assert len(ours) >= 9
    for task in ours:
        soft, hard = _limits(task)
        assert soft and hard and soft < hard, (task.name, soft, hard)
    # Webhook runs are kept shorter than the default.
    assert _limits(app.tasks["clients.tasks.deliver_webhook"])[1] < app.conf.task_time_limit


def test_the_outbox_sweep_starts_no_delivery_after_its_time(people, monkeypatch):
    from notifications.services import outbox
    from tests.notifications.helpers import enqueue

    rows = [enqueue(people["alice"], key=f"budget-{n}") for n in range(3)]
    clock = iter(range(1000))
    # Each look at the clock is a second later: 2.5 s allow two deliveries.
    monkeypatch.setattr(outbox.time, "monotonic", lambda: float(next(clock)))

    assert outbox.outbox_sweep(seconds=2.5) == 2
    assert outbox.Outbox.objects.get(pk=rows[2].pk).status == "pending"
