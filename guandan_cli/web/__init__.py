"""The web table (``guandan table``): a person's seat in the browser, against bots.

``view`` turns a seat's observation into the JSON the page draws; ``seat`` is the person's seat
(questions out, answers in); ``server`` serves the page and the WebSocket; ``game`` plays a game
of ``guandan play`` with them; ``static/`` holds the page.
"""
