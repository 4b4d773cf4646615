//! The template engine: the minijinja environment with rigel's filters and the built-in templates
//! (`env`), a user's own templates (`user`, bounded by `user_loader`, isolated in a child process by
//! `isolate`), and errors that name an undefined variable and its nearest neighbour (`undefined`).

mod env;
mod isolate;
mod summarize;
mod undefined;
mod user;
mod user_loader;

pub(crate) use env::{base_environment, builtin_environment};
pub(crate) use isolate::render_user;
pub use isolate::{isolate_user_templates, serve_template_child};
pub(crate) use summarize::TABLE_ROWS;

use crate::ReportError;
use minijinja::{Environment, Value};

/// Renders the template `name` of `env`; an undefined variable's error names it and its nearest
/// neighbour in the context.
pub(crate) fn render_one(
    env: &Environment,
    name: &str,
    ctx: &Value,
) -> Result<String, ReportError> {
    env.get_template(name)
        .and_then(|t| t.render(ctx))
        .map_err(|e| ReportError::template(&e, name).explained(undefined::explain(env, &e, ctx)))
}
