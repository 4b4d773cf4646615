//! One field of a serializable struct as a template value, without converting the others: the
//! context's long lists (every point, every class row) hand templates objects that convert a field
//! when it is read, so that a template that reads `p.label` of 100,000 points never holds their
//! per-second series. [`Fields`] is such an object, [`Seq`] a list of them made one at a time.

use minijinja::Value;
use minijinja::value::{Enumerator, Object, ObjectRepr};
use serde::Serialize;
use serde::ser::{self, Impossible, SerializeMap, SerializeStruct};
use std::fmt;
use std::sync::Arc;

/// A struct (or map) read one field at a time. `get` finds the value in its owner (a point of a
/// shared document, say); `long` gives fields of its own a lazy form (a list of rows as a [`Seq`]),
/// and every other field is converted as a whole when read.
pub struct Fields<O: Send + Sync + 'static, T: Serialize + 'static> {
    owner: Arc<O>,
    at: usize,
    get: fn(&O, usize) -> &T,
    long: fn(&Arc<O>, usize, &str) -> Option<Value>,
}

impl<O: Send + Sync + 'static, T: Serialize + 'static> Fields<O, T> {
    pub fn value(
        owner: Arc<O>,
        at: usize,
        get: fn(&O, usize) -> &T,
        long: fn(&Arc<O>, usize, &str) -> Option<Value>,
    ) -> Value {
        Value::from_object(Fields {
            owner,
            at,
            get,
            long,
        })
    }

    fn item(&self) -> &T {
        (self.get)(&self.owner, self.at)
    }
}

/// No field of its own is lazy.
pub fn none<O>(_: &Arc<O>, _: usize, _: &str) -> Option<Value> {
    None
}

impl<O: Send + Sync + 'static, T: Serialize + 'static> fmt::Debug for Fields<O, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Fields")
    }
}

impl<O: Send + Sync + 'static, T: Serialize + 'static> Object for Fields<O, T> {
    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        let key = key.as_str()?;
        if let Some(v) = (self.long)(&self.owner, self.at, key) {
            return Some(v);
        }
        match self.item().serialize(Pick { key }) {
            Ok(found) => found,
            // Not a struct or a map: read it whole.
            Err(_) => Value::from_serialize(self.item()).get_attr(key).ok(),
        }
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        let mut names = Vec::new();
        if self.item().serialize(Names(&mut names)).is_err() {
            return Enumerator::NonEnumerable;
        }
        Enumerator::Values(names)
    }
}

/// The maker of a [`Seq`]'s `i`th item.
type Make = Box<dyn Fn(usize) -> Value + Send + Sync>;

/// A list whose `i`th item is made when read (`make(i)`), never all at once.
pub struct Seq {
    len: usize,
    make: Make,
}

impl Seq {
    pub fn value(len: usize, make: impl Fn(usize) -> Value + Send + Sync + 'static) -> Value {
        Value::from_object(Seq {
            len,
            make: Box::new(make),
        })
    }
}

impl fmt::Debug for Seq {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Seq({})", self.len)
    }
}

impl Object for Seq {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Seq
    }

    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        let i = key.as_usize()?;
        (i < self.len).then(|| (self.make)(i))
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Seq(self.len)
    }

    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        Some(self.len)
    }
}

/// Why a field could not be picked: the value is not a struct or a map.
#[derive(Debug)]
struct NotFields;

impl fmt::Display for NotFields {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not a struct or a map")
    }
}

impl std::error::Error for NotFields {}

impl ser::Error for NotFields {
    fn custom<M: fmt::Display>(_: M) -> Self {
        NotFields
    }
}

/// Declares every serializer method but the two kept as refusals.
macro_rules! refuse {
    ($($name:ident($($t:ty),*);)*) => {
        $(fn $name(self, $(_: $t),*) -> Result<Self::Ok, NotFields> { Err(NotFields) })*
    };
}

macro_rules! only_structs_and_maps {
    () => {
        type Error = NotFields;
        type SerializeSeq = Impossible<Self::Ok, NotFields>;
        type SerializeTuple = Impossible<Self::Ok, NotFields>;
        type SerializeTupleStruct = Impossible<Self::Ok, NotFields>;
        type SerializeTupleVariant = Impossible<Self::Ok, NotFields>;
        type SerializeStructVariant = Impossible<Self::Ok, NotFields>;
        refuse! {
            serialize_bool(bool); serialize_i8(i8); serialize_i16(i16); serialize_i32(i32);
            serialize_i64(i64); serialize_u8(u8); serialize_u16(u16); serialize_u32(u32);
            serialize_u64(u64); serialize_f32(f32); serialize_f64(f64); serialize_char(char);
            serialize_str(&str); serialize_bytes(&[u8]); serialize_none(); serialize_unit();
            serialize_unit_struct(&'static str);
            serialize_unit_variant(&'static str, u32, &'static str);
        }
        fn serialize_some<V: Serialize + ?Sized>(self, _: &V) -> Result<Self::Ok, NotFields> {
            Err(NotFields)
        }
        fn serialize_newtype_struct<V: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: &V,
        ) -> Result<Self::Ok, NotFields> {
            Err(NotFields)
        }
        fn serialize_newtype_variant<V: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &V,
        ) -> Result<Self::Ok, NotFields> {
            Err(NotFields)
        }
        fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, NotFields> {
            Err(NotFields)
        }
        fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, NotFields> {
            Err(NotFields)
        }
        fn serialize_tuple_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleStruct, NotFields> {
            Err(NotFields)
        }
        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleVariant, NotFields> {
            Err(NotFields)
        }
        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeStructVariant, NotFields> {
            Err(NotFields)
        }
    };
}

/// Converts the one field named `key` (none when the value leaves it out).
struct Pick<'k> {
    key: &'k str,
}

struct Picking<'k> {
    key: &'k str,
    found: Option<Value>,
    /// A map's key, read as text, waiting for its value.
    pending: bool,
}

impl<'k> ser::Serializer for Pick<'k> {
    type Ok = Option<Value>;
    type SerializeMap = Picking<'k>;
    type SerializeStruct = Picking<'k>;
    only_structs_and_maps!();

    fn serialize_map(self, _: Option<usize>) -> Result<Picking<'k>, NotFields> {
        Ok(Picking {
            key: self.key,
            found: None,
            pending: false,
        })
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Picking<'k>, NotFields> {
        self.serialize_map(None)
    }
}

impl SerializeStruct for Picking<'_> {
    type Ok = Option<Value>;
    type Error = NotFields;

    fn serialize_field<V: Serialize + ?Sized>(
        &mut self,
        name: &'static str,
        value: &V,
    ) -> Result<(), NotFields> {
        if self.found.is_none() && name == self.key {
            self.found = Some(Value::from_serialize(value));
        }
        Ok(())
    }

    fn end(self) -> Result<Option<Value>, NotFields> {
        Ok(self.found)
    }
}

impl SerializeMap for Picking<'_> {
    type Ok = Option<Value>;
    type Error = NotFields;

    fn serialize_key<K: Serialize + ?Sized>(&mut self, key: &K) -> Result<(), NotFields> {
        self.pending =
            self.found.is_none() && Value::from_serialize(key).as_str() == Some(self.key);
        Ok(())
    }

    fn serialize_value<V: Serialize + ?Sized>(&mut self, value: &V) -> Result<(), NotFields> {
        if self.pending {
            self.found = Some(Value::from_serialize(value));
            self.pending = false;
        }
        Ok(())
    }

    fn end(self) -> Result<Option<Value>, NotFields> {
        Ok(self.found)
    }
}

/// Collects the names of the fields a value writes, in order.
struct Names<'n>(&'n mut Vec<Value>);

impl<'n> ser::Serializer for Names<'n> {
    type Ok = ();
    type SerializeMap = Names<'n>;
    type SerializeStruct = Names<'n>;
    only_structs_and_maps!();

    fn serialize_map(self, _: Option<usize>) -> Result<Names<'n>, NotFields> {
        Ok(self)
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Names<'n>, NotFields> {
        Ok(self)
    }
}

impl SerializeStruct for Names<'_> {
    type Ok = ();
    type Error = NotFields;

    fn serialize_field<V: Serialize + ?Sized>(
        &mut self,
        name: &'static str,
        _: &V,
    ) -> Result<(), NotFields> {
        self.0.push(Value::from(name));
        Ok(())
    }

    fn end(self) -> Result<(), NotFields> {
        Ok(())
    }
}

impl SerializeMap for Names<'_> {
    type Ok = ();
    type Error = NotFields;

    fn serialize_key<K: Serialize + ?Sized>(&mut self, key: &K) -> Result<(), NotFields> {
        self.0.push(Value::from_serialize(key));
        Ok(())
    }

    fn serialize_value<V: Serialize + ?Sized>(&mut self, _: &V) -> Result<(), NotFields> {
        Ok(())
    }

    fn end(self) -> Result<(), NotFields> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[derive(Serialize)]
    struct Row {
        name: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        gone: Option<u32>,
        inner: BTreeMap<String, u32>,
        #[serde(flatten)]
        more: BTreeMap<String, u32>,
    }

    fn rows() -> Arc<Vec<Row>> {
        Arc::new(
            (0..3)
                .map(|i| Row {
                    name: format!("row {i}"),
                    gone: None,
                    inner: [("a".to_string(), i)].into(),
                    more: [("extra".to_string(), i * 10)].into(),
                })
                .collect(),
        )
    }

    #[test]
    fn objects_read_as_the_converted_values_would() {
        let rows = rows();
        let owner = rows.clone();
        let lazy = Seq::value(rows.len(), move |i| {
            Fields::value(owner.clone(), i, |o, i| &o[i], none)
        });
        let eager = Value::from_serialize(&*rows);
        let json = |v: &Value| serde_json::to_value(v).expect("serializes");
        assert_eq!(json(&lazy), json(&eager));
        let env = minijinja::Environment::new();
        let t = "{% for r in rows %}{{ r.name }} {{ r.inner.a }} {{ r.extra }} {{ r.gone is defined }} {{ r | length }};{% endfor %}{{ rows | length }} {{ rows[1].name }} {{ rows[-1].name }}";
        let lazy_out = env
            .render_str(t, minijinja::context! { rows => lazy })
            .expect("renders");
        let eager_out = env
            .render_str(t, minijinja::context! { rows => eager })
            .expect("renders");
        assert_eq!(lazy_out, eager_out);
        assert!(lazy_out.starts_with("row 0 0 0 False 3;"), "{lazy_out}");
    }
}
