//! Louvain communities on small graphs with known structure. A graph is
//! written as edges `a-b` (weight 1) or `a-b:2.5`, one group per line or
//! space-separated; the snapshot lists the communities found.

use expect_test::{Expect, expect};
use ken_pipeline::louvain::{communities, modularity};

fn check(graph: &str, resolution: f64, expect: Expect) {
    let mut names: Vec<String> = Vec::new();
    let index = |name: &str, names: &mut Vec<String>| match names.iter().position(|n| n == name) {
        Some(i) => i,
        None => {
            names.push(name.to_string());
            names.len() - 1
        }
    };
    let mut edges = Vec::new();
    for token in graph.split_whitespace() {
        let (pair, weight) = token.split_once(':').map_or((token, 1.0), |(p, w)| (p, w.parse().unwrap()));
        let (a, b) = pair.split_once('-').unwrap_or((pair, pair));
        let (a, b) = (index(a, &mut names), index(b, &mut names));
        edges.push((a, b, weight));
    }
    let membership = communities(names.len(), &edges, resolution);
    let count = membership.iter().max().map_or(0, |m| m + 1);
    let mut groups: Vec<Vec<&str>> = vec![Vec::new(); count];
    for (node, &c) in membership.iter().enumerate() {
        groups[c].push(&names[node]);
    }
    let mut text: Vec<String> = groups.iter().map(|g| g.join(" ")).collect();
    text.push(format!("Q = {:.3}", modularity(names.len(), &edges, &membership, resolution)));
    expect.assert_eq(&(text.join("\n") + "\n"));
}

#[test]
fn two_cliques_joined_by_one_edge() {
    check(
        "a-b a-c a-d b-c b-d c-d  e-f e-g e-h f-g f-h g-h  d-e",
        1.0,
        expect![[r#"
            a b c d
            e f g h
            Q = 0.423
        "#]],
    );
}

#[test]
fn resolution_splits_or_merges() {
    let ring = "a-b b-c c-a  c-d  d-e e-f f-d  f-g  g-h h-i i-g  i-a";
    check(
        ring,
        0.1,
        expect![[r#"
        a b c d e f g h i
        Q = 0.900
    "#]],
    );
    check(
        ring,
        1.0,
        expect![[r#"
        a b c
        d e f
        g h i
        Q = 0.417
    "#]],
    );
    check(
        ring,
        5.0,
        expect![[r#"
        a
        b
        c
        d
        e
        f
        g
        h
        i
        Q = -0.573
    "#]],
    );
}

#[test]
fn weights_decide() {
    // b is tied to a by weight and to c by a weaker edge.
    check(
        "a-b:5 b-c:1 c-d:5",
        1.0,
        expect![[r#"
        a b
        c d
        Q = 0.409
    "#]],
    );
}

#[test]
fn isolated_nodes_and_self_loops() {
    check(
        "a-a b-b c-d",
        1.0,
        expect![[r#"
        a
        b
        c d
        Q = 0.333
    "#]],
    );
    check(
        "",
        1.0,
        expect![[r#"
        Q = 0.000
    "#]],
    );
}

#[test]
fn the_karate_club_splits_into_its_known_factions() {
    // Zachary's karate club (1977): 34 members, 78 friendships. Louvain at
    // resolution 1 finds four communities with modularity about 0.42.
    let edges = "1-2 1-3 1-4 1-5 1-6 1-7 1-8 1-9 1-11 1-12 1-13 1-14 1-18 1-20 1-22 1-32 2-3 2-4 2-8 2-14 2-18 2-20 \
        2-22 2-31 3-4 3-8 3-9 3-10 3-14 3-28 3-29 3-33 4-8 4-13 4-14 5-7 5-11 6-7 6-11 6-17 7-17 9-31 9-33 9-34 \
        10-34 14-34 15-33 15-34 16-33 16-34 19-33 19-34 20-34 21-33 21-34 23-33 23-34 24-26 24-28 24-30 24-33 \
        24-34 25-26 25-28 25-32 26-32 27-30 27-34 28-34 29-32 29-34 30-33 30-34 31-33 31-34 32-33 32-34 33-34";
    check(
        edges,
        1.0,
        expect![[r#"
        1 2 3 4 8 12 13 14 18 20 22 10
        5 6 7 11 17
        9 31 33 34 15 16 19 21 23 30 27
        32 28 29 24 26 25
        Q = 0.419
    "#]],
    );
}
