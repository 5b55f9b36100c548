//! The attributes a mapper owns (its table layout's and its
//! `OWNED_ATTRIBUTES`), as a set worked out once per mapper type and cached:
//! a record's read asks it of every attribute left over, a bag's merge of
//! every bag attribute, so a lookup must cost less than comparing the name
//! with each of the layout's.

use std::any::TypeId;

use super::Mapper;
use crate::names::ByLength;
use crate::type_cache::TypeCache;

/// Whether `M` owns the attribute `name`.
pub(super) fn owns<M: Mapper>(name: &str) -> bool {
    owned::<M>().get(name).is_some()
}

/// The attributes `M` owns; a caller asking about many names fetches the
/// set once.
pub(super) fn owned<M: Mapper>() -> &'static ByLength<()> {
    static CACHE: TypeCache<TypeId, ByLength<()>> = TypeCache::new();
    CACHE.get_or_insert_with(TypeId::of::<M>(), || {
        let table = &M::SCHEMA;
        let names = table
            .key_attributes()
            .into_iter()
            .map(|k| k.name)
            .chain(table.discriminator)
            .chain(table.ttl)
            .chain(table.version)
            .chain(table.shape)
            .chain(M::OWNED_ATTRIBUTES.iter().copied());
        ByLength::new(names.map(|n| (Box::from(n), ())))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{GlobalSecondaryIndex, KeyAttribute, TableSchema};

    #[derive(serde::Serialize, serde::Deserialize)]
    struct E {}

    struct Wide;
    impl Mapper for Wide {
        type Entity = E;
        const ENTITY_TYPE: &'static str = "E";
        const SCHEMA: TableSchema = TableSchema::new("pk")
            .sort_key("sk")
            .indexes(&[
                GlobalSecondaryIndex::new("g1", "gsi1pk").sort_key("gsi1sk"),
                GlobalSecondaryIndex::new("g2", "sk").sort_key("gsi2sk"),
                GlobalSecondaryIndex::multi_attribute(
                    "g3",
                    &[KeyAttribute::new("tenant"), KeyAttribute::new("region")],
                    &[KeyAttribute::new("at")],
                ),
            ])
            .ttl("expires")
            .version("v");
        const OWNED_ATTRIBUTES: &'static [&'static str] = &["recordType", "pk"];
    }

    /// Another mapper type, with a layout of its own: each type has its own
    /// set in the one cache.
    struct Plain;
    impl Mapper for Plain {
        type Entity = E;
        const ENTITY_TYPE: &'static str = "P";
        const SCHEMA: TableSchema = TableSchema::new("pk");
    }

    /// The cached set answers what the layout and `OWNED_ATTRIBUTES` say,
    /// for every name they hold and for names close to them.
    #[test]
    fn owns_what_the_layout_owns() {
        let probes = [
            "pk",
            "sk",
            "gsi1pk",
            "gsi1sk",
            "gsi2sk",
            "tenant",
            "region",
            "at",
            "expires",
            "v",
            "entityType",
            "recordType",
            "gsi2pk",
            "gsi1p",
            "p",
            "",
            "Pk",
            "entitytype",
            "note",
        ];
        for name in probes {
            let expected = Wide::SCHEMA.owns(name) || Wide::OWNED_ATTRIBUTES.contains(&name);
            assert_eq!(owns::<Wide>(name), expected, "{name:?}");
            let plain = name == "pk" || name == "entityType";
            assert_eq!(owns::<Plain>(name), plain, "{name:?}");
        }
        assert!(owns::<Wide>("tenant") && !owns::<Wide>("note"));
    }
}
