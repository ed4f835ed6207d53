from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.schema import THROTTLED
from api.serializers.variants import VariantSerializer
from games import engine


class VariantsView(APIView):
    """The rule sets the engine serves, with their options (what POST /games/ accepts)."""

    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="variants_list",
        summary="Variants and their table options",
        tags=["variants"],
        responses={200: VariantSerializer(many=True), **THROTTLED},
    )
    def get(self, request: Request) -> Response:
        return Response(engine.list_variants())
