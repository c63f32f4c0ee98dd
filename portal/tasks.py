from celery import shared_task


@shared_task(name="portal.ping", ignore_result=False)  # its answer is the point
def ping() -> str:
    """Round trip through the broker and a worker: what the service tests and ops probes use."""
    return "pong"
