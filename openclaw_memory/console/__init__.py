"""The web console: see and correct what the agent remembers, under /ui on the service.

`views.Console` holds the routes, one module per page group (server-rendered Jinja2 templates
in templates/, a little JavaScript and CSS in static/, nothing fetched from elsewhere), `queries`
the reads, `security` the doors (Host allow-list, sign-in, session cookie, CSRF and same-origin
checks), `api` the JSON routes under /v1 for edit, export and import, `cli` the `ui` command.
"""
