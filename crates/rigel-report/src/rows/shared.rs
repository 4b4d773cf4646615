//! A view shared by the lists that show it: a point's rows sit in its `classes` and `c`, its
//! class's `rows` and its group's `rows`, one allocation for all four.

use serde::Serialize;
use std::sync::Arc;

/// A view shared by the lists that show it, serialized as the view itself (serde's `rc` feature
/// would rebuild every crate that uses serde).
#[derive(Debug)]
pub struct Shared<T>(pub Arc<T>);

impl<T> Shared<T> {
    pub fn new(v: T) -> Self {
        Shared(Arc::new(v))
    }
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(self.0.clone())
    }
}

impl<T> std::ops::Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Serialize> Serialize for Shared<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}
