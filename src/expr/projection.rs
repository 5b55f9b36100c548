//! [`Projection`]: a projection expression, the attributes a read returns,
//! rendered through the shared placeholders (`#p0, #p1`).

use serde::de::DeserializeOwned;

use super::expression::Expression;
use super::operand::Attr;
use super::placeholders::{Ctx, EXPRESSION, check_stem, expr_error};
use crate::error::Result;
use crate::item::Item;
use crate::mapper::{Mapper, MapperExt, projected_attributes};
use crate::record::Record;

/// The attributes a `GetItem`, `Query` or `Scan` returns: a projection
/// expression, with every name behind a placeholder. Read the items with
/// [`MapperExt::from_projected`](crate::MapperExt::from_projected).
///
/// ```
/// # use dynamodb_mapper_support::doc::*;
/// use dynamodb_mapper::expr::{Projection, Apply};
///
/// #[derive(serde::Deserialize)]
/// struct OrderRef { id: String }
///
/// let projection = Projection::of::<OrderMapper, OrderRef>()?;
/// let e = projection.build()?;
/// assert_eq!(e.expression(), "#p0, #p1, #p2, #p3");
/// assert_eq!(
///     [&e.names()["#p0"], &e.names()["#p1"], &e.names()["#p2"], &e.names()["#p3"]],
///     ["id", "entityType", "pk", "sk"]
/// );
/// let query = client().query().table_name("AppTable").apply(&projection)?;
/// assert_eq!(query.get_projection_expression().as_deref(), Some("#p0, #p1, #p2, #p3"));
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[must_use]
pub struct Projection {
    paths: Vec<Attr>,
}

impl Projection {
    /// The attributes `P` (a smaller view of `M`'s entity, see
    /// [`MapperExt::from_projected`](crate::MapperExt::from_projected))
    /// needs: its fields under `M`'s stored names, the discriminator (so the
    /// type is still checked) and the table's key attributes (so errors
    /// name the item).
    ///
    /// # Errors
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) when `P`
    /// is not a plain struct (its fields cannot be listed); errors of `M`'s
    /// naming convention.
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// use dynamodb_mapper::expr::Projection;
    /// #[derive(serde::Deserialize)]
    /// struct NoteText { text: String }
    /// let e = Projection::of::<NoteMapper, NoteText>()?.build()?;
    /// assert_eq!(e.names().len(), 3); // text, entityType, pk
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn of<M: Mapper, P: DeserializeOwned + 'static>() -> Result<Projection> {
        Ok(Projection {
            paths: projected_attributes::<M, P>()?
                .into_iter()
                .map(Attr::top_level)
                .collect(),
        })
    }

    /// The attributes (or nested paths) at `paths`.
    ///
    /// ```
    /// use dynamodb_mapper::expr::{attr, Projection};
    /// let e = Projection::paths([attr("id"), attr("address.city")]).build()?;
    /// assert_eq!(e.expression(), "#p0, #p1.#p2");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn paths(paths: impl IntoIterator<Item = Attr>) -> Projection {
        Projection {
            paths: paths.into_iter().collect(),
        }
    }

    /// The record of `item`, read through this projection (as
    /// [`MapperExt::record_from_item`](crate::MapperExt::record_from_item)
    /// reads a whole item), marked with it ([`Record::projection`]): it
    /// holds only what the projection asked for, so a whole-item write of
    /// it is refused; an update of the fields it holds is not.
    ///
    /// # Errors
    /// As [`MapperExt::record_from_item`](crate::MapperExt::record_from_item).
    ///
    /// ```
    /// # use dynamodb_mapper_support::doc::*;
    /// use dynamodb_mapper::expr::{attr, Projection};
    /// use dynamodb_mapper::{ErrorKind, MapperExt};
    ///
    /// let projection = Projection::paths([attr("pk"), attr("entityType"), attr("id"), attr("text")]);
    /// let item = NoteMapper::to_item(&Note { id: 1, text: "hi".into() })?; // as if projected
    /// let record = projection.record_from_item::<NoteMapper>(item)?;
    /// assert_eq!(record.projection(), Some("pk, entityType, id, text"));
    /// let err = NoteMapper::record_to_item(&record).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::PartialRecord);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn record_from_item<M: Mapper>(&self, item: Item) -> Result<Record<M::Entity>> {
        let read: Vec<&str> = self.paths.iter().map(Attr::path).collect();
        M::record_from_item(item).map(|record| record.read_through(Some(&read.join(", "))))
    }

    /// The expression, with placeholders `#p0`, `#p1`, ...
    ///
    /// # Errors
    /// [`ErrorKind::InvalidValue`](crate::ErrorKind::InvalidValue) naming a
    /// path that is not valid, or `(expression)` for a projection of no
    /// attributes.
    ///
    /// ```
    /// use dynamodb_mapper::expr::Projection;
    /// let err = Projection::paths([]).build().unwrap_err();
    /// assert_eq!(err.to_string(), "attribute `(expression)` is a projection of no attributes");
    /// ```
    pub fn build(&self) -> Result<Expression> {
        self.build_with_stem("p")
    }

    /// The expression, with placeholders `#<stem>0`, ...
    ///
    /// # Errors
    /// As [`build`](Self::build), and for a stem that is not ASCII letters
    /// and digits starting with a letter.
    pub(crate) fn build_with_stem(&self, stem: &str) -> Result<Expression> {
        check_stem(stem)?;
        if self.paths.is_empty() {
            return Err(expr_error(EXPRESSION, "is a projection of no attributes"));
        }
        let mut ctx = Ctx::new(stem);
        let mut text = String::new();
        for (i, path) in self.paths.iter().enumerate() {
            if i > 0 {
                text.push_str(", ");
            }
            ctx.path(path, &mut text)?;
        }
        Ok(Expression::rendered(text, ctx))
    }
}
