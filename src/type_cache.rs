//! What the crate works out once per type and keeps for the life of the
//! process: an entity's field table (`fields.rs`), a mapper's key plan
//! (`mapper/plan.rs`) and the attributes it owns (`mapper/owned.rs`). Each
//! is a [`TypeCache`], looked up on every `to_item` and `from_item`, so a
//! hit takes a shared read lock and hashes a `TypeId` without SipHash.
//! Also the per-thread caches of what is worked out once per key template
//! ([`thread_cached`], bounded).

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::rc::Rc;
use std::sync::{OnceLock, PoisonError, RwLock};

/// Hashes keys no attacker chooses (a `TypeId`, an address and a length,
/// small values) without SipHash: each word goes in as it is, mixed by one
/// multiplication. A `TypeId` is already a hash of its type.
#[derive(Default)]
pub(crate) struct FastHasher(u64);

impl Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

/// A `HashMap` hashing with [`FastHasher`].
pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

type Map<K, V> = FastMap<K, &'static V>;

/// A value per key (a `TypeId`, alone or with a small value), worked out on
/// first use and kept for the life of the process. Made in a `static`.
///
/// Values are leaked on purpose: one per type the program maps, never
/// freed, so a lookup hands out `&'static` and holds no lock after it.
/// Two threads asking for a new key at once may both work it out; the
/// first to store it wins, and both get that one.
pub(crate) struct TypeCache<K, V: 'static> {
    map: OnceLock<RwLock<Map<K, V>>>,
}

impl<K: Eq + Hash, V: Send + Sync + 'static> TypeCache<K, V> {
    /// An empty cache.
    pub(crate) const fn new() -> Self {
        TypeCache {
            map: OnceLock::new(),
        }
    }

    /// The value of `key`, worked out by `make` if none is kept yet.
    pub(crate) fn get_or_insert_with(&self, key: K, make: impl FnOnce() -> V) -> &'static V {
        let Ok(value) =
            self.get_or_try_insert_with(key, || Ok::<V, std::convert::Infallible>(make()));
        value
    }

    /// The value of `key`, worked out by `make` if none is kept yet. An
    /// error of `make` is returned and nothing is kept: the next call tries
    /// again.
    ///
    /// # Errors
    /// The error of `make`.
    pub(crate) fn get_or_try_insert_with<E>(
        &self,
        key: K,
        make: impl FnOnce() -> std::result::Result<V, E>,
    ) -> std::result::Result<&'static V, E> {
        let map = self.map.get_or_init(Default::default);
        // A panic elsewhere while the lock was held leaves the map as it
        // was before or after one insert: still a valid cache.
        if let Some(&found) = map.read().unwrap_or_else(PoisonError::into_inner).get(&key) {
            return Ok(found);
        }
        let made: &'static V = Box::leak(Box::new(make()?));
        let mut map = map.write().unwrap_or_else(PoisonError::into_inner);
        Ok(*map.entry(key).or_insert(made))
    }
}

/// The value `key` names in this thread's `cache`, made by `make` on first
/// use. The cache starts over past `max` entries (a program that makes
/// keys at run time, leaking them, must not grow it without bound) and is
/// skipped while the thread is torn down.
pub(crate) fn thread_cached<K, V: ?Sized>(
    cache: &'static std::thread::LocalKey<RefCell<FastMap<K, Rc<V>>>>,
    max: usize,
    key: K,
    make: impl FnOnce() -> crate::Result<Rc<V>>,
) -> crate::Result<Rc<V>>
where
    K: std::hash::Hash + Eq,
{
    let hit = cache
        .try_with(|c| c.borrow().get(&key).cloned())
        .ok()
        .flatten();
    if let Some(value) = hit {
        return Ok(value);
    }
    let value = make()?;
    let _ = cache.try_with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= max {
            c.clear();
        }
        c.insert(key, Rc::clone(&value));
    });
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::any::TypeId;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn works_a_value_out_once_per_key() {
        static CACHE: TypeCache<TypeId, String> = TypeCache::new();
        static MADE: AtomicUsize = AtomicUsize::new(0);
        let make = |name: &str| {
            MADE.fetch_add(1, Ordering::SeqCst);
            name.to_owned()
        };
        let a = CACHE.get_or_insert_with(TypeId::of::<u8>(), || make("u8"));
        let b = CACHE.get_or_insert_with(TypeId::of::<u16>(), || make("u16"));
        let again = CACHE.get_or_insert_with(TypeId::of::<u8>(), || make("other"));
        assert_eq!(
            (a.as_str(), b.as_str(), again.as_str()),
            ("u8", "u16", "u8")
        );
        assert!(std::ptr::eq(a, again), "a hit hands out the kept value");
        assert_eq!(MADE.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn keeps_nothing_when_working_out_fails() {
        static CACHE: TypeCache<(TypeId, u8), u32> = TypeCache::new();
        let key = (TypeId::of::<u8>(), 1);
        assert_eq!(CACHE.get_or_try_insert_with(key, || Err("no")), Err("no"));
        assert_eq!(
            CACHE.get_or_try_insert_with(key, || Ok::<_, &str>(7)),
            Ok(&7)
        );
        assert_eq!(CACHE.get_or_try_insert_with(key, || Err("no")), Ok(&7));
        // The small value is part of the key.
        let other = (TypeId::of::<u8>(), 2);
        assert_eq!(
            CACHE.get_or_try_insert_with(other, || Ok::<_, &str>(8)),
            Ok(&8)
        );
    }

    #[test]
    fn threads_racing_on_a_new_key_all_get_the_kept_value() {
        static CACHE: TypeCache<TypeId, usize> = TypeCache::new();
        let got: Vec<&'static usize> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|i| s.spawn(move || CACHE.get_or_insert_with(TypeId::of::<i64>(), || i)))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(got.iter().all(|v| std::ptr::eq(*v, got[0])), "{got:?}");
    }
}
