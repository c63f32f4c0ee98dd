# One image for web, worker and beat (docker-compose.yml picks the command).
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DJANGO_SETTINGS_MODULE=portal.settings.production
# Pango for WeasyPrint; Noto CJK so Chinese proposals show real glyphs; gettext for messages.
RUN apt-get update \
 && apt-get install -y --no-install-recommends libpango-1.0-0 libpangoft2-1.0-0 \
    fonts-noto-cjk fonts-dejavu-core gettext \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY pyproject.toml README.md ./
COPY portal/ portal/
COPY catalog/ catalog/
COPY quoting/ quoting/
RUN pip install --no-cache-dir .
COPY . .
RUN SECRET_KEY=build-only-$(python -c 'import secrets;print(secrets.token_hex(32))') \
    ALLOWED_HOSTS=build TRUSTED_PROXY_COUNT=0 python manage.py collectstatic --noinput \
 && useradd --system --uid 1000 fabricquote && mkdir -p /app/var && chown fabricquote /app/var
USER fabricquote
EXPOSE 8000
# gunicorn.conf.py: 0.0.0.0:8000, $WEB_CONCURRENCY (3) workers, the app preloaded (docs/operations.md).
CMD ["gunicorn", "-c", "gunicorn.conf.py", "portal.wsgi"]
