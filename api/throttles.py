from rest_framework.throttling import AnonRateThrottle


class AuthRateThrottle(AnonRateThrottle):
    """Sign-up and token requests, per client address: slows down password guessing."""

    scope = "auth"
