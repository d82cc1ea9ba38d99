"""The LLM path: provider config, clients with one retry layer, a pool, a fake
provider (`_fake/`) and cassettes that record and replay a provider (`_cassette/`)."""

from ._breaker import Breaker as Breaker
from ._cassette import CassetteDeck as CassetteDeck
from ._cassette import Cassettes as Cassettes
from ._cassette import Exchange as Exchange
from ._cassette import cassette_cell as cassette_cell
from ._cassette import load_cassettes as load_cassettes
from ._cassette import read_cassette as read_cassette
from ._classify import error_info as error_info
from ._classify import refusal_reason as refusal_reason
from ._client import ChatClient as ChatClient
from ._config import AgentOptions as AgentOptions
from ._config import ProviderConfig as ProviderConfig
from ._config import ProviderKind as ProviderKind
from ._dialect import json_object as json_object
from ._errors import ContextTooLong as ContextTooLong
from ._errors import LLMError as LLMError
from ._errors import ProviderOutage as ProviderOutage
from ._errors import ProviderRefused as ProviderRefused
from ._fake import FakeProvider as FakeProvider
from ._fake import Fault as Fault
from ._fake import RecordedRequest as RecordedRequest
from ._fake import ReferenceBook as ReferenceBook
from ._fake import problem_anthropic as problem_anthropic
from ._fake import problem_openai as problem_openai
from ._keys import Keys as Keys
from ._keys import driver_keys as driver_keys
from ._pool import ProviderPool as ProviderPool
from ._retry import parse_retry_after as parse_retry_after
from ._types import AssistantMsg as AssistantMsg
from ._types import ChatRequest as ChatRequest
from ._types import Completion as Completion
from ._types import ImagePart as ImagePart
from ._types import Message as Message
from ._types import ToolCall as ToolCall
from ._types import ToolResultMsg as ToolResultMsg
from ._types import ToolSpec as ToolSpec
from ._types import UserMsg as UserMsg

__all__ = [
    "AgentOptions",
    "AssistantMsg",
    "Breaker",
    "CassetteDeck",
    "Cassettes",
    "ChatClient",
    "ChatRequest",
    "Completion",
    "ContextTooLong",
    "Exchange",
    "FakeProvider",
    "Fault",
    "ImagePart",
    "Keys",
    "LLMError",
    "Message",
    "ProviderConfig",
    "ProviderKind",
    "ProviderOutage",
    "ProviderPool",
    "ProviderRefused",
    "RecordedRequest",
    "ReferenceBook",
    "ToolCall",
    "ToolResultMsg",
    "ToolSpec",
    "UserMsg",
    "cassette_cell",
    "driver_keys",
    "error_info",
    "json_object",
    "load_cassettes",
    "parse_retry_after",
    "problem_anthropic",
    "problem_openai",
    "read_cassette",
    "refusal_reason",
]
