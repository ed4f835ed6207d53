"""Accounts: password reset, the account's address, export, deletion, invitations, rematch."""

from rest_framework import serializers


class ResetRequestInSerializer(serializers.Serializer):
    email = serializers.EmailField(max_length=254)


class DetailSerializer(serializers.Serializer):
    detail = serializers.CharField(help_text="What happens now, for people.")


class ResetConfirmInSerializer(serializers.Serializer):
    uid = serializers.CharField(max_length=64, help_text="From the reset link: /reset/{uid}/…")
    token = serializers.CharField(max_length=128, help_text="From the reset link: …/{token}/")
    new_password = serializers.CharField(write_only=True, style={"input_type": "password"})


class AccountSerializer(serializers.Serializer):
    username = serializers.CharField()
    email = serializers.CharField(help_text="The account's address (may be empty).")
    email_confirmed = serializers.BooleanField(
        help_text="false until the confirmation link mailed to the address is opened: until "
        "then it gets no turn emails or digests and play by email from it is refused."
    )


class AccountPatchInSerializer(serializers.Serializer):
    email = serializers.EmailField(
        max_length=254,
        allow_blank=True,
        help_text="A new address: a confirmation link is mailed to it; until it is opened the "
        "address gets nothing else.",
    )


class EmailConfirmInSerializer(serializers.Serializer):
    token = serializers.CharField(max_length=512, help_text="From the confirmation link.")


class ResendOutSerializer(serializers.Serializer):
    sent = serializers.BooleanField(
        help_text="false: the address is confirmed already, or a link went out a minute ago."
    )


class AccountDeleteInSerializer(serializers.Serializer):
    password = serializers.CharField(write_only=True, style={"input_type": "password"})


class AccountDeletedSerializer(serializers.Serializer):
    resigned = serializers.IntegerField(help_text="Games in play resigned.")
    left = serializers.IntegerField(help_text="Open tables left.")
    invitations_withdrawn = serializers.IntegerField()


class InvitationInSerializer(serializers.Serializer):
    email = serializers.EmailField(max_length=254, required=False, allow_blank=True)
    username = serializers.CharField(max_length=150, required=False, allow_blank=True)

    def validate(self, attrs: dict) -> dict:
        if bool(attrs.get("email")) == bool(attrs.get("username")):
            raise serializers.ValidationError("Give either email or username.")
        return attrs


class InvitationSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    game = serializers.UUIDField()
    email = serializers.CharField()
    state = serializers.ChoiceField(
        choices=["pending", "accepted", "withdrawn", "declined", "expired", "closed"]
    )
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()


class InvitationsOutSerializer(serializers.Serializer):
    invitations = InvitationSerializer(many=True)


class InvitationTokenInSerializer(serializers.Serializer):
    token = serializers.CharField(max_length=128, help_text="From the invitation link.")


class RematchInSerializer(serializers.Serializer):
    swap_partners = serializers.BooleanField(
        required=False,
        default=False,
        help_text="false: the same seats (partners kept); true: each side's second player "
        "moves one side on (new partners).",
    )
