//! The object and status tables, and event delivery.

// Ids are hashed on every read and write; SipHash's resistance is not needed for them.
use foldhash::{HashMap, HashMapExt};
use offlux_sync::RwLockExt as _;
use std::hash::Hash;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use super::status::{Status, StatusRecord};

/// What a write did to an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    Added,
    Changed,
    /// Byte-identical to what was stored: no event is emitted.
    Unchanged,
}

/// A notification that something in the Store changed. It carries ids only: subscribers read the
/// current state back, so a late event never hands out stale content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event<Id> {
    Added(Id),
    Changed(Id),
    Removed(Id),
    /// The status became terminal (Ready or Failed), or changed from one terminal status to another.
    Terminal(Id),
}

/// A handle returned by `subscribe`, to unsubscribe with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Subscription(u64);

type Callback<Id> = Arc<dyn Fn(&Event<Id>) + Send + Sync>;

/// Immutable objects keyed by id, with statuses and change events. Every method takes `&self` and is
/// safe to call from many threads; share the Store itself in an `Arc`.
pub struct Store<Id, Obj> {
    objects: RwLock<HashMap<Id, Arc<Obj>>>,
    statuses: RwLock<HashMap<Id, StatusRecord<Id>>>,
    subscribers: RwLock<Vec<(Subscription, Callback<Id>)>>,
    next_subscription: AtomicU64,
}

impl<Id, Obj> Default for Store<Id, Obj>
where
    Id: Clone + Ord + Hash,
    Obj: PartialEq,
{
    fn default() -> Self {
        Self::new()
    }
}

impl<Id, Obj> Store<Id, Obj>
where
    Id: Clone + Ord + Hash,
    Obj: PartialEq,
{
    pub fn new() -> Self {
        Store {
            objects: RwLock::new(HashMap::new()),
            statuses: RwLock::new(HashMap::new()),
            subscribers: RwLock::new(Vec::new()),
            next_subscription: AtomicU64::new(0),
        }
    }

    /// Calls `callback` for every later event, on the thread of the writer that caused it, with no
    /// Store lock held (so the callback may read or write the Store).
    pub(crate) fn subscribe(
        &self,
        callback: impl Fn(&Event<Id>) + Send + Sync + 'static,
    ) -> Subscription {
        let subscription = Subscription(self.next_subscription.fetch_add(1, Ordering::Relaxed));
        write(&self.subscribers).push((subscription, Arc::new(callback)));
        subscription
    }

    /// Delivers every later event into an unbounded channel.
    pub fn subscribe_channel(&self) -> (Subscription, crossbeam_channel::Receiver<Event<Id>>)
    where
        Id: Send + 'static,
    {
        let (sender, receiver) = crossbeam_channel::unbounded();
        let subscription = self.subscribe(move |event| {
            // A dropped receiver only means nobody listens any more.
            let _ = sender.send(event.clone());
        });
        (subscription, receiver)
    }

    /// Stops delivery to a subscriber; events already being delivered may still arrive.
    pub(crate) fn unsubscribe(&self, subscription: Subscription) {
        write(&self.subscribers).retain(|(s, _)| *s != subscription);
    }

    /// Stores `object` under `id`. Replacing an object with equal content changes nothing and emits
    /// nothing, so a node that re-renders the same output does not wake its dependants.
    pub fn insert(&self, id: Id, object: impl Into<Arc<Obj>>) -> Change {
        let change = self.put(id.clone(), object.into());
        match change {
            Change::Added => self.emit(&[Event::Added(id)]),
            Change::Changed => self.emit(&[Event::Changed(id)]),
            Change::Unchanged => {}
        }
        change
    }

    /// Stores several objects, then emits their events in the given order. Callers put data objects
    /// first so that whoever an event wakes finds the data it needs already there.
    pub fn insert_all(&self, objects: impl IntoIterator<Item = (Id, Arc<Obj>)>) -> Vec<Change> {
        let mut changes = Vec::new();
        let mut events = Vec::new();
        for (id, object) in objects {
            let change = self.put(id.clone(), object);
            match change {
                Change::Added => events.push(Event::Added(id)),
                Change::Changed => events.push(Event::Changed(id)),
                Change::Unchanged => {}
            }
            changes.push(change);
        }
        self.emit(&events);
        changes
    }

    fn put(&self, id: Id, object: Arc<Obj>) -> Change {
        let mut objects = write(&self.objects);
        match objects.get(&id) {
            Some(old) if Arc::ptr_eq(old, &object) || **old == *object => Change::Unchanged,
            Some(_) => {
                objects.insert(id, object);
                Change::Changed
            }
            None => {
                objects.insert(id, object);
                Change::Added
            }
        }
    }

    /// Removes an object (e.g. pruned by a re-render) and its status.
    pub fn remove(&self, id: &Id) -> Option<Arc<Obj>> {
        let removed = write(&self.objects).remove(id);
        write(&self.statuses).remove(id);
        if removed.is_some() {
            self.emit(&[Event::Removed(id.clone())]);
        }
        removed
    }

    pub fn get(&self, id: &Id) -> Option<Arc<Obj>> {
        read(&self.objects).get(id).cloned()
    }

    pub fn contains(&self, id: &Id) -> bool {
        read(&self.objects).contains_key(id)
    }

    pub fn len(&self) -> usize {
        read(&self.objects).len()
    }

    pub fn is_empty(&self) -> bool {
        read(&self.objects).is_empty()
    }

    /// All objects, sorted by id.
    pub fn objects(&self) -> Vec<(Id, Arc<Obj>)> {
        self.objects_where(|_| true)
    }

    /// The objects whose id `keep` accepts, sorted by id; only those are copied out.
    pub(crate) fn objects_where(&self, keep: impl Fn(&Id) -> bool) -> Vec<(Id, Arc<Obj>)> {
        let mut chosen: Vec<_> = read(&self.objects)
            .iter()
            .filter(|(id, _)| keep(id))
            .map(|(id, object)| (id.clone(), Arc::clone(object)))
            .collect();
        chosen.sort_by(|a, b| a.0.cmp(&b.0));
        chosen
    }

    /// Sets the status of `id` (an object need not exist: a failed lookup can be recorded too).
    /// Emits `Terminal` when the new status is terminal and differs from the old one (a change of
    /// `blocked_by` alone is silent); returns whether anything changed.
    pub(crate) fn set_status(&self, id: Id, record: StatusRecord<Id>) -> bool {
        let (changed, became_terminal) = {
            let mut statuses = write(&self.statuses);
            match statuses.get(&id) {
                Some(old) if *old == record => (false, false),
                old => {
                    let status_changed = old.is_none_or(|old| old.status != record.status);
                    let terminal = status_changed && record.status.is_terminal();
                    statuses.insert(id.clone(), record);
                    (true, terminal)
                }
            }
        };
        if became_terminal {
            self.emit(&[Event::Terminal(id)]);
        }
        changed
    }

    /// Shorthand for a status without root causes.
    pub fn set(&self, id: Id, status: Status) -> bool {
        self.set_status(id, StatusRecord::new(status, Vec::new()))
    }

    /// The status of `id`: the recorded one, `Pending` for a stored object without one, `None` when
    /// neither the object nor a status exists.
    pub fn status(&self, id: &Id) -> Option<StatusRecord<Id>> {
        if let Some(record) = read(&self.statuses).get(id) {
            return Some(record.clone());
        }
        self.contains(id).then(|| StatusRecord {
            status: Status::Pending,
            blocked_by: Vec::new(),
        })
    }

    /// All recorded statuses, sorted by id.
    pub fn statuses(&self) -> Vec<(Id, StatusRecord<Id>)> {
        self.statuses_where(|_| true)
    }

    /// The statuses whose id `keep` accepts, sorted by id; only those are copied out.
    pub(crate) fn statuses_where(&self, keep: impl Fn(&Id) -> bool) -> Vec<(Id, StatusRecord<Id>)> {
        let mut chosen: Vec<_> = read(&self.statuses)
            .iter()
            .filter(|(id, _)| keep(id))
            .map(|(id, record)| (id.clone(), record.clone()))
            .collect();
        chosen.sort_by(|a, b| a.0.cmp(&b.0));
        chosen
    }

    fn emit(&self, events: &[Event<Id>]) {
        if events.is_empty() {
            return;
        }
        // Cloned out so that no lock is held while callbacks run: a callback may subscribe, or write.
        let subscribers: Vec<Callback<Id>> = read(&self.subscribers)
            .iter()
            .map(|(_, callback)| Arc::clone(callback))
            .collect();
        for event in events {
            for callback in &subscribers {
                callback(event);
            }
        }
    }
}

// A panic in another thread while it held a lock leaves the maps consistent (every update is a single
// insert or remove), so a poisoned lock is used as is rather than spreading the panic.
fn read<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read_locked()
}

fn write<T>(lock: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    lock.write_locked()
}
