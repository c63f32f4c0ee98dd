"""A real Celery worker process on the real Redis runs our tasks."""

from portal.celery import app
from portal.tasks import ping
from tests.service_helpers import celery_worker


def test_a_real_worker_process_answers_a_task_through_redis(redis_url):
    saved = {k: app.conf[k] for k in ("broker_url", "result_backend", "task_always_eager")}
    app.conf.update(broker_url=redis_url, result_backend=redis_url, task_always_eager=False)
    try:
        with celery_worker(redis_url=redis_url) as (process, queue):
            result = ping.apply_async(queue=queue)
            assert result.get(timeout=60) == "pong"
            assert process.poll() is None, "the worker died"
    finally:
        app.conf.update(saved)
