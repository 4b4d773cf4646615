//! Reports: the minijinja environment and the built-in templates (embedded from `templates/`).
