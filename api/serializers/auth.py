from typing import Any, cast

from django.contrib.auth import get_user_model, password_validation
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import Field
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

from accounts.services.addresses import address_available
from api.serializers.me import LANGUAGE_HELP, TIME_ZONE_HELP, TimeZoneField
from notifications.models import Language

ADDRESS_UNAVAILABLE = gettext_lazy(
    "This email address cannot be used for a new account. If it is yours, sign in or reset "
    "your password."
)


class RegisterInSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(write_only=True, style={"input_type": "password"})
    # No default: "" is not an email address, and the schema would say it is (it fails
    # openapi-spec-validator). A missing email is stored as "".
    email = serializers.EmailField(required=False, allow_blank=True)
    language = serializers.ChoiceField(
        choices=Language.choices,
        required=False,
        help_text=LANGUAGE_HELP + " Default: the request's Accept-Language, else en.",
    )
    time_zone = TimeZoneField(required=False, help_text=TIME_ZONE_HELP + " Default: UTC.")

    def validate_username(self, value: str) -> str:
        user_model = get_user_model()
        # The username is a concrete field (never a relation), so it has validators.
        field = cast("Field[Any, Any]", user_model._meta.get_field(user_model.USERNAME_FIELD))
        for validator in field.validators:
            try:
                validator(value)
            except DjangoValidationError as error:
                raise serializers.ValidationError(list(error.messages)) from None
        if user_model.objects.filter(**{f"{user_model.USERNAME_FIELD}__iexact": value}).exists():
            raise serializers.ValidationError("This username is taken.")
        return value

    def validate_email(self, value: str) -> str:
        if value and not address_available(address=value):
            # The same words for every account that holds it: it names none.
            raise serializers.ValidationError(ADDRESS_UNAVAILABLE)
        return value

    def validate(self, attrs: dict) -> dict:
        user_model = get_user_model()
        candidate = user_model(username=attrs["username"], email=attrs.get("email", ""))
        try:
            password_validation.validate_password(attrs["password"], user=candidate)
        except DjangoValidationError as error:
            raise serializers.ValidationError({"password": list(error.messages)}) from None
        return attrs


class TokenInSerializer(serializers.Serializer):
    username = serializers.CharField()
    password = serializers.CharField(write_only=True, style={"input_type": "password"})
    device = serializers.CharField(
        required=False,
        max_length=2000,
        write_only=True,
        help_text="The `device` this program was given by its last sign-in. With it, this "
        "program's wrong passwords are counted on their own, and a stranger's wrong guesses "
        "for the account do not make it wait. A value the service did not give counts as "
        "none.",
    )


@extend_schema_serializer(deprecate_fields=["token_id", "token"])
class TokenOutSerializer(serializers.Serializer):
    username = serializers.CharField()
    id = serializers.IntegerField(
        help_text="The token's id: DELETE /tokens/{id}/ revokes it (sign this program out)."
    )
    key = serializers.CharField(
        help_text="A new account token, shown only now (it is stored hashed). Send as "
        "`Authorization: Token <key>` (or `Bearer`)."
    )
    token_id = serializers.IntegerField(help_text="Deprecated: the same as `id`.")
    token = serializers.CharField(help_text="Deprecated: the same as `key`.")
    device = serializers.CharField(
        required=False,
        help_text="Only from a sign-in with a password: keep it and send it with the next "
        "sign-in (`device`), as a browser keeps its device cookie.",
    )


class PasswordChangeInSerializer(serializers.Serializer):
    old_password = serializers.CharField(write_only=True, style={"input_type": "password"})
    new_password = serializers.CharField(write_only=True, style={"input_type": "password"})

    def validate(self, attrs: dict) -> dict:
        try:
            password_validation.validate_password(
                attrs["new_password"], user=self.context.get("user")
            )
        except DjangoValidationError as error:
            raise serializers.ValidationError({"new_password": list(error.messages)}) from None
        return attrs


class AccountTokensRevokedSerializer(serializers.Serializer):
    revoked = serializers.IntegerField(help_text="How many account tokens were revoked.")
