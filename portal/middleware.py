from django.utils import translation


class UserLanguageMiddleware:
    """A signed-in user's chosen language wins over the browser's Accept-Language.

    Runs after AuthenticationMiddleware; LocaleMiddleware has already picked the browser's
    language for anonymous visitors (and share-link pages pick the customer's own).
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and user.language:
            translation.activate(user.language)
            request.LANGUAGE_CODE = user.language
        return self.get_response(request)
