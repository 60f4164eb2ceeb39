"""The one stop list: English function words, and the named sets built on it for one purpose.

`STOP_WORDS` holds articles, determiners, pronouns, the common prepositions and conjunctions,
auxiliaries and modals with their contractions: words that never say what a text is about, and
whose absence changes no question ("What is *the* KV cache?"). It replaced seven lists (names,
search, lint, grounding, conflicts, consolidation) that had drifted apart, from 14 to 178 words:
"should" was a stop word of search and "must" not, "without" one of names and not of search.

Words a statement or a question can turn on ("without a GPU", "must contain", "never") are not
in it: `QUALIFIERS` names them, and names and page terms (`TOPICLESS_WORDS`) leave them out too.

Why not a packaged list: `stop-words` and `stopwordsiso` ship 1,300 English words, among them
"state", "group", "system", "text", "free", "full", "working" and "keys"; 27 of the 157 topic
names of the development corpus (scripts/data/corpus/expected.yaml) hold one ("intern state",
"working group", "full-text search"); 3 hold a word of `STOP_WORDS`, all inside a compound
("drop-in", "S-waiting-on-author", "llm-gpt4all").

A purpose that needs more words says so with a set built on `STOP_WORDS` here, never a copy.
"""

from __future__ import annotations

from wikic.language.stemming import stem

_FUNCTION_WORDS = """
a about above after all also am an and any are aren't as at be been being both but by can can't
could couldn't did didn't do does doesn't doing don't during each few for from had has have
having he her here hers him his how i i'm if in into is isn't it it's its itself just let's me
more most my no nor not now of off on once only or other our ours out over own same she should
shouldn't so some such than that that's the their theirs them then there there's these they
this those through to too under until up us very was wasn't we we're were what when where which
while who whom why will with won't would wouldn't you your yours
"""
STOP_WORDS = frozenset(_FUNCTION_WORDS.split())
# the same words stemmed, for text already stemmed ("does" is "doe", "having" is "have")
STOP_STEMS = frozenset(stem(w) for w in STOP_WORDS)

# words that deny: part of what a name or a claim says ("--no-stream", "is not thread-safe")
NEGATIONS = frozenset({"not", "no", "never", "cannot", "none", "neither", "nor", "without"})

# the articles a name may hold and still be the same name ("The KV cache" is "KV cache")
ARTICLES = frozenset({"a", "an", "the"})

# words that open a noun phrase: what follows one is a noun or qualifies one ("the weights
# file", "each models directory"), never a verb
DETERMINERS = frozenset({
    "a", "an", "the", "its", "their", "our", "your", "my", "his", "these", "those", "each",
    "every", "some", "any", "no", "all", "both", "many",
})  # fmt: skip

# words that say how, how often, how much or in relation to what: a claim or a question can
# turn on one ("without a GPU", "must contain"), but no name starts with one
_QUALIFIER_WORDS = """
across again against almost along always among anything around because before behind between
beyond cannot despite either even every everything except instead less many may might much must
neither never nothing often onto per since something still throughout toward towards upon via
within without
"""
QUALIFIERS = frozenset(_QUALIFIER_WORDS.split())

# verbs that say how, not what ("use the cache", "makes requests"): no phrase starts with one
LIGHT_VERBS = frozenset({
    "make", "makes", "made", "get", "gets", "got", "use", "uses", "used", "using", "keep", "keeps",
    "kept",
})  # fmt: skip

# words that say nothing of what a text is about: never the start of a name or a phrase, never a
# term a page is found by
TOPICLESS_WORDS = STOP_WORDS | QUALIFIERS | LIGHT_VERBS | {"new", "one", "two", "three"}

# the words a request is phrased with ("Tell me about …", "Please list …"): no topic of a query
REQUEST_WORDS = frozenset({"tell", "explain", "describe", "give", "list", "show", "please", "know"})
QUERY_STOP_WORDS = STOP_WORDS | REQUEST_WORDS

# months and weekdays: a capitalised one starts no name ("March 3", "Monday's standup")
CALENDAR_WORDS = frozenset({
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday",
    "saturday", "sunday",
})  # fmt: skip

# words too common in daily notes to say what recurs (consolidation), and units
_NOTE_FILLER_TEXT = """
again today yesterday tomorrow morning afternoon evening night week weeks day days time times
still even yet already first last next new old another less much many good bad better worse
great little long short high low big small whole half part parts went go goes going gone came
come comes coming took take takes taking made make makes making got get gets getting put puts
said say says saw see sees seen looked look looks found find finds used use uses using tried
try tries work works worked working done thing things way ways lot lots bit kind sort case
point fact number around back away down before since because though although however instead
really quite maybe perhaps probably almost every either neither none whose without within onto
below between among fix fixed fixes fixing need needed needs start started starts stop stopped
help helped helps per run runs ran running
gb mb kb tb ms am pm ok id vs etc
"""
NOTE_FILLER_WORDS = frozenset(_NOTE_FILLER_TEXT.split())

# words of a question that ask rather than name a topic (query's decline checks)
_QUESTION_WORD_TEXT = """
many much default often kind type way ways used uses use make makes made happen happens
according said say says mean means called
"""
QUESTION_WORDS = frozenset(_QUESTION_WORD_TEXT.split())
