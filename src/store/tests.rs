use std::sync::{Arc, Mutex};

use super::*;

type TestStore = Store<String, String>;

fn id(name: &str) -> String {
    name.to_owned()
}

fn recorder(store: &TestStore) -> Arc<Mutex<Vec<Event<String>>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    store.subscribe(move |event| sink.lock().unwrap().push(event.clone()));
    seen
}

#[test]
fn added_changed_and_identical_readd() {
    let store = TestStore::new();
    let seen = recorder(&store);
    assert_eq!(store.insert(id("a"), "one".to_owned()), Change::Added);
    assert_eq!(store.insert(id("a"), "one".to_owned()), Change::Unchanged);
    assert_eq!(store.insert(id("a"), "two".to_owned()), Change::Changed);
    assert_eq!(
        store.get(&id("a")).as_deref().map(String::as_str),
        Some("two")
    );
    assert_eq!(
        *seen.lock().unwrap(),
        vec![Event::Added(id("a")), Event::Changed(id("a"))]
    );
}

#[test]
fn terminal_events_only_on_terminal_change() {
    let store = TestStore::new();
    store.insert(id("ks"), "spec".to_owned());
    let seen = recorder(&store);
    assert_eq!(
        store.status(&id("ks")).map(|r| r.status),
        Some(Status::Pending)
    );
    assert_eq!(store.status(&id("absent")), None);

    assert!(store.set(id("ks"), Status::Pending));
    assert!(store.set(id("ks"), Status::failed("dependency 'x' not found")));
    assert!(!store.set(id("ks"), Status::failed("dependency 'x' not found")));
    // A new root cause with the same status is recorded but wakes nobody.
    assert!(store.set_status(
        id("ks"),
        StatusRecord::new(
            Status::failed("dependency 'x' not found"),
            vec![id("x"), id("x")]
        )
    ));
    assert_eq!(
        store.status(&id("ks")).map(|r| r.blocked_by),
        Some(vec![id("x")])
    );
    assert!(store.set(
        id("ks"),
        Status::Ready(Ready::Skipped("remote source".into()))
    ));
    assert_eq!(
        *seen.lock().unwrap(),
        vec![Event::Terminal(id("ks")), Event::Terminal(id("ks"))]
    );
    assert!(store.status(&id("ks")).unwrap().status.is_ready());
}

#[test]
fn batch_events_keep_order_and_channel_delivery() {
    let store = TestStore::new();
    let (subscription, events) = store.subscribe_channel();
    let changes = store.insert_all([
        (id("cm"), Arc::new("data".to_owned())),
        (id("ks"), Arc::new("spec".to_owned())),
        (id("cm"), Arc::new("data".to_owned())),
    ]);
    assert_eq!(
        changes,
        vec![Change::Added, Change::Added, Change::Unchanged]
    );
    assert_eq!(
        events.try_iter().collect::<Vec<_>>(),
        vec![Event::Added(id("cm")), Event::Added(id("ks"))]
    );
    store.unsubscribe(subscription);
    store.remove(&id("cm"));
    assert!(events.try_recv().is_err());
    assert!(!store.contains(&id("cm")));
}

#[test]
fn callbacks_may_reenter_the_store() {
    let store = Arc::new(TestStore::new());
    let inner = Arc::clone(&store);
    // Writing from inside a callback would deadlock if a lock were held across delivery.
    store.subscribe(move |event| {
        if let Event::Added(added) = event {
            if added == "ks" {
                inner.set(id("ks"), Status::ready());
            }
        }
    });
    let seen = recorder(&store);
    store.insert(id("ks"), "spec".to_owned());
    assert_eq!(
        store.status(&id("ks")).map(|r| r.status),
        Some(Status::ready())
    );
    assert!(seen.lock().unwrap().contains(&Event::Terminal(id("ks"))));
}

#[test]
fn concurrent_writers_see_a_consistent_store() {
    let store = Arc::new(TestStore::new());
    let seen = recorder(&store);
    std::thread::scope(|scope| {
        for worker in 0..4 {
            let store = Arc::clone(&store);
            scope.spawn(move || {
                for n in 0..200 {
                    store.insert(format!("{worker}-{n}"), format!("{n}"));
                    store.set(format!("{worker}-{n}"), Status::ready());
                }
            });
        }
    });
    assert_eq!(store.len(), 800);
    let ids: Vec<_> = store.objects().into_iter().map(|(id, _)| id).collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted);
    assert_eq!(store.statuses().len(), 800);
    assert_eq!(seen.lock().unwrap().len(), 1600);
}

#[test]
fn store_does_not_know_the_scheduler() {
    let sources = [
        ("mod.rs", include_str!("mod.rs")),
        ("status.rs", include_str!("status.rs")),
        ("table.rs", include_str!("table.rs")),
    ];
    for (file, source) in sources {
        assert!(
            !source.contains("crate::schedule"),
            "src/store/{file} names the scheduler"
        );
        assert!(
            !source.contains("crate::controllers"),
            "src/store/{file} names the controllers"
        );
    }
}
