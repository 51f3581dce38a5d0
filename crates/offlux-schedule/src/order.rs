//! The order of a drain round: leaves first, so that a failure travels up a chain in one round.

/// Strongly connected components of `edges` (node `v` waits on each of `edges[v]`), each component
/// listed after every component it waits on. A node waiting on nothing comes out alone and first
/// among its dependants; a cycle comes out as one component.
///
/// Iterative (Tarjan's algorithm with an explicit call stack): a chain of a hundred thousand nodes
/// must not overflow the thread's stack.
pub(crate) fn leaves_first(edges: &[Vec<usize>]) -> Vec<Vec<usize>> {
    const UNVISITED: usize = usize::MAX;
    let count = edges.len();
    let mut index = vec![UNVISITED; count];
    let mut low = vec![0; count];
    let mut on_stack = vec![false; count];
    let mut stack = Vec::new();
    let mut calls: Vec<(usize, usize)> = Vec::new();
    let mut next = 0;
    let mut components = Vec::new();

    for root in 0..count {
        if index[root] != UNVISITED {
            continue;
        }
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        calls.push((root, 0));

        while let Some((node, position)) = calls.last_mut() {
            let node = *node;
            if let Some(&target) = edges[node].get(*position) {
                *position += 1;
                if target >= count {
                    continue;
                }
                if index[target] == UNVISITED {
                    index[target] = next;
                    low[target] = next;
                    next += 1;
                    stack.push(target);
                    on_stack[target] = true;
                    calls.push((target, 0));
                } else if on_stack[target] {
                    low[node] = low[node].min(index[target]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(parent, _)) = calls.last() {
                low[parent] = low[parent].min(low[node]);
            }
            if low[node] == index[node] {
                let mut component = Vec::new();
                while let Some(member) = stack.pop() {
                    on_stack[member] = false;
                    component.push(member);
                    if member == node {
                        break;
                    }
                }
                components.push(component);
            }
        }
    }
    components
}

/// The shortest cycle from `start` back to it through vertices `inside` accepts, breadth first with
/// neighbours in index order, so the same graph always gives the same path. The path starts and
/// ends with `start`. Visits only vertices `inside` accepts, once each.
pub(crate) fn shortest_cycle(
    edges: &[Vec<usize>],
    start: usize,
    inside: impl Fn(usize) -> bool,
) -> Option<Vec<usize>> {
    let mut parent: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(current) = queue.pop_front() {
        for &next in edges.get(current).map_or(&[][..], |out| &out[..]) {
            if next == start {
                let mut back = Vec::new();
                let mut at = current;
                while at != start {
                    back.push(at);
                    at = *parent.get(&at)?;
                }
                let mut path = Vec::with_capacity(back.len() + 2);
                path.push(start);
                path.extend(back.into_iter().rev());
                path.push(start);
                return Some(path);
            }
            if inside(next) && !parent.contains_key(&next) {
                parent.insert(next, current);
                queue.push_back(next);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{leaves_first, shortest_cycle};

    fn sorted(mut components: Vec<Vec<usize>>) -> Vec<Vec<usize>> {
        for component in &mut components {
            component.sort();
        }
        components
    }

    #[test]
    fn chain_comes_out_leaf_first() {
        // 0 waits on 1, 1 on 2, 2 on nothing.
        let edges = vec![vec![1], vec![2], vec![]];
        assert_eq!(
            sorted(leaves_first(&edges)),
            vec![vec![2], vec![1], vec![0]]
        );
    }

    #[test]
    fn cycle_is_one_component_after_what_it_waits_on() {
        // 0 and 1 wait on each other; 1 also waits on 2; 3 waits on 0.
        let edges = vec![vec![1], vec![0, 2], vec![], vec![0]];
        assert_eq!(
            sorted(leaves_first(&edges)),
            vec![vec![2], vec![0, 1], vec![3]]
        );
    }

    #[test]
    fn shortest_cycle_starts_and_ends_at_start_in_index_order() {
        // 0 → 1 → 2 → 0 and 0 → 3 → 0: the shorter one wins; a self-loop is a cycle of one.
        let edges = vec![vec![1, 3], vec![2], vec![0], vec![0], vec![4]];
        assert_eq!(shortest_cycle(&edges, 0, |_| true), Some(vec![0, 3, 0]));
        assert_eq!(shortest_cycle(&edges, 1, |_| true), Some(vec![1, 2, 0, 1]));
        assert_eq!(shortest_cycle(&edges, 4, |_| true), Some(vec![4, 4]));
        assert_eq!(shortest_cycle(&edges, 1, |v| v != 2), None);
    }

    #[test]
    fn long_chain_does_not_recurse() {
        let count = 200_000;
        let edges: Vec<Vec<usize>> = (0..count)
            .map(|n| if n + 1 < count { vec![n + 1] } else { vec![] })
            .collect();
        let order = leaves_first(&edges);
        assert_eq!(order.len(), count);
        assert_eq!(order.first(), Some(&vec![count - 1]));
        assert_eq!(order.last(), Some(&vec![0]));
    }
}
