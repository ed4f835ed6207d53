from rest_framework.throttling import AnonRateThrottle, UserRateThrottle


class AuthRateThrottle(AnonRateThrottle):
    """Sign-up and token requests, per client address: slows down password guessing."""

    scope = "auth"


class PasswordRateThrottle(UserRateThrottle):
    """A password change, per user, at the sign-in rate: slows down guessing the old one with
    a stolen session or account token."""

    scope = "auth"
