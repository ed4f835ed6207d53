from canasta_site import celery as celery_module
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


def test_the_deadline_sweep_is_scheduled_only_when_its_task_exists(monkeypatch, settings):
    settings.CANASTA_DEADLINE_SWEEP_SECONDS = 30
    monkeypatch.setattr(celery_module, "_module_exists", lambda name: False)
    assert "sweep-deadlines" not in beat_schedule()
    monkeypatch.setattr(celery_module, "_module_exists", lambda name: name == "games.tasks")
    entry = beat_schedule()["sweep-deadlines"]
    assert entry["task"] == "games.tasks.sweep_deadlines"
    assert entry["schedule"] == 30
