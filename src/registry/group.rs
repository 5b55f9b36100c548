//! Groups: [`Group`], a named set of a registry's entity types with its
//! discriminator filter and decoding restricted to its members, and
//! [`Registry::group`], which hands one out.

use std::fmt;

use crate::error::{Error, Result};
use crate::item::Item;

use super::decoded::{Decoded, DecodedItems};
use super::dispatch::Registry;
use super::entry::GroupData;
use crate::expr::Expression;

/// A named set of entity types of a [`Registry`], for base/derived queries:
/// its discriminator filter, and decoding restricted to its members (an item
/// of another type is handled by the [`UnknownPolicy`](super::UnknownPolicy)).
///
/// ```
/// # use dynamodb_mapper::{ItemExt, Item, Mapper, TableSchema};
/// # use serde::{Deserialize, Serialize};
/// # use dynamodb_mapper_support::doc::*;
/// use dynamodb_mapper::Registry;
///
/// let registry = Registry::builder()
///     .register::<CustomerMapper>(Entity::Customer)
///     .register::<OrderMapper>(Entity::Order)
///     .group("Sales", &["Order"])
///     .build()?;
/// let sales = registry.group("Sales")?;
/// assert_eq!(sales.filter().expression(), "#dmType0 IN (:dmType0, :dmType1)");
///
/// let customer = CustomerMapper::to_item(&Customer { id: "C1".into() })?;
/// assert_eq!(
///     sales.decode(customer).unwrap_err().to_string(),
///     "item (pk=\"CUSTOMER#C1\", sk=\"METADATA\"): discriminator `entityType` is \"Customer\", \
///      which no mapper of group \"Sales\" reads (members: \"Order\")"
/// );
/// # Ok::<(), dynamodb_mapper::Error>(())
/// ```
pub struct Group<'r, T> {
    registry: &'r Registry<T>,
    data: &'r GroupData,
}

impl<T> Clone for Group<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Group<'_, T> {}

impl<T> fmt::Debug for Group<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Group")
            .field("name", &self.name())
            .field("entity_types", &self.entity_types())
            .finish()
    }
}

impl<T> Registry<T> {
    /// The group called `name` (see
    /// [`RegistryBuilder::group`](super::RegistryBuilder::group)): its filter,
    /// and decoding restricted to its members.
    ///
    /// # Errors
    /// [`ErrorKind::NotRegistered`](crate::ErrorKind::NotRegistered) when no
    /// group has that name.
    ///
    /// ```
    /// # use dynamodb_mapper::{ItemExt, Item, Mapper, TableSchema};
    /// # use serde::{Deserialize, Serialize};
    /// # use dynamodb_mapper_support::doc::*;
    /// use dynamodb_mapper::Registry;
    ///
    /// let registry = Registry::builder()
    ///     .register::<CustomerMapper>(Entity::Customer)
    ///     .register::<OrderMapper>(Entity::Order)
    ///     .group("Sales", &["Order"])
    ///     .build()?;
    /// let sales = registry.group("Sales")?;
    /// assert_eq!(sales.entity_types(), ["Order"]);
    /// assert_eq!(registry.group("Admins").unwrap_err().to_string(), "group \"Admins\" is not registered");
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn group(&self, name: &str) -> Result<Group<'_, T>> {
        match self.inner.groups.iter().find(|g| g.name == name) {
            Some(data) => Ok(Group {
                registry: self,
                data,
            }),
            None => Err(Error::not_registered("group", name)),
        }
    }
}

impl<'r, T> Group<'r, T> {
    /// The group's name.
    #[must_use]
    pub(crate) fn name(&self) -> &'r str {
        self.data.name.as_str()
    }

    /// The member entity types, in the order the group names them.
    ///
    /// ```
    /// # use dynamodb_mapper::{Item, Mapper, Registry, TableSchema};
    /// # use dynamodb_mapper_support::doc::*;
    /// let registry = Registry::builder().register::<NoteMapper>(|n| n).group("All", &["Note"]).build()?;
    /// assert_eq!(registry.group("All")?.entity_types(), ["Note"]);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub fn entity_types(&self) -> &'r [&'static str] {
        self.data.entity_types.as_slice()
    }

    /// The group's discriminator filter: its members and their aliases.
    ///
    /// ```
    /// # use dynamodb_mapper::{Item, Mapper, Registry, TableSchema};
    /// # use dynamodb_mapper_support::doc::*;
    /// let registry = Registry::builder().register::<OrderMapper>(|o| o).group("Sales", &["Order"]).build()?;
    /// let filter = registry.group("Sales")?.filter();
    /// assert_eq!(filter, registry.filter(&["Order"])?);
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    #[must_use]
    pub fn filter(&self) -> Expression {
        self.data.filter.clone()
    }

    /// Decodes one item, if its entity type is a member of the group; an item
    /// of another type is handled by the registry's
    /// [`UnknownPolicy`](super::UnknownPolicy).
    ///
    /// # Errors
    /// As [`Registry::decode`];
    /// [`ErrorKind::UnknownEntityType`](crate::ErrorKind::UnknownEntityType)
    /// names the group.
    ///
    /// ```
    /// # use dynamodb_mapper::{ItemExt, Item, Mapper, TableSchema};
    /// # use serde::{Deserialize, Serialize};
    /// # use dynamodb_mapper_support::doc::*;
    /// use dynamodb_mapper::{Decoded, Registry, Unmatched, UnknownPolicy};
    ///
    /// let registry = Registry::builder()
    ///     .register::<CustomerMapper>(Entity::Customer)
    ///     .register::<OrderMapper>(Entity::Order)
    ///     .group("Sales", &["Order"])
    ///     .on_unknown(UnknownPolicy::Skip)
    ///     .build()?;
    /// let sales = registry.group("Sales")?;
    /// let order = Order { id: "O1".into(), customer: "C1".into() };
    /// let decoded = sales.decode(OrderMapper::to_item(&order)?)?;
    /// assert_eq!(decoded, Decoded::Entity(Entity::Order(order)));
    /// let customer = sales.decode(CustomerMapper::to_item(&Customer { id: "C1".into() })?)?;
    /// let Decoded::Skipped(skipped) = customer else { panic!("not skipped") };
    /// assert_eq!(skipped.reason, Unmatched::Unknown { value: "Customer".into() });
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn decode(&self, item: Item) -> Result<Decoded<T>> {
        self.registry.inner.decode(item, Some(self.data), None)
    }

    /// Decodes many items restricted to the group, as
    /// [`Registry::decode_all`] does.
    ///
    /// # Errors
    /// The first error [`decode`](Self::decode) returns.
    ///
    /// ```
    /// # use dynamodb_mapper::{ItemExt, Item, Mapper, TableSchema};
    /// # use serde::{Deserialize, Serialize};
    /// # use dynamodb_mapper_support::doc::*;
    /// use dynamodb_mapper::{Registry, UnknownPolicy};
    ///
    /// let registry = Registry::builder()
    ///     .register::<CustomerMapper>(Entity::Customer)
    ///     .register::<OrderMapper>(Entity::Order)
    ///     .group("Sales", &["Order"])
    ///     .on_unknown(UnknownPolicy::Keep)
    ///     .build()?;
    /// let items = vec![
    ///     CustomerMapper::to_item(&Customer { id: "C1".into() })?,
    ///     OrderMapper::to_item(&Order { id: "O1".into(), customer: "C1".into() })?,
    /// ];
    /// let out = registry.group("Sales")?.decode_all(items)?;
    /// assert_eq!(out.entities.len(), 1);
    /// assert_eq!(out.raw.len(), 1); // the customer, kept whole
    /// # Ok::<(), dynamodb_mapper::Error>(())
    /// ```
    pub fn decode_all(&self, items: impl IntoIterator<Item = Item>) -> Result<DecodedItems<T>> {
        self.registry.inner.decode_all(items, Some(self.data), None)
    }
}
