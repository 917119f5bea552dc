//! A JetStream cluster of N `nats-server` nodes on 127.0.0.1, routed to each
//! other, with helpers to kill and restart nodes and to wait for a meta leader.

use std::time::{Duration, Instant};

use super::http::{free_ports, http_get};
use super::server::{ClusterSpec, NatsServer, NatsServerBuilder};

const READY_TIMEOUT: Duration = Duration::from_secs(30);
const CLUSTER_NAME: &str = "natsjet-test";

/// N JetStream nodes named `n1`..`nN` in cluster `natsjet-test`.
/// Dropping it kills every node and removes their dirs.
pub struct NatsCluster {
    nodes: Vec<NatsServer>,
}

impl NatsCluster {
    /// Starts `n` JetStream nodes and waits until every node is healthy and
    /// they agree on a JetStream meta leader.
    pub fn start(n: usize) -> NatsCluster {
        Self::start_with(n, |b| b)
    }

    /// Like [`start`](Self::start); `customize` can add options to each
    /// node's builder (e.g. `|b| b.websocket()`). Auth::Creds is not
    /// supported here (each node would get its own operator).
    pub fn start_with(n: usize, customize: impl Fn(NatsServerBuilder) -> NatsServerBuilder) -> NatsCluster {
        assert!(n >= 1, "a cluster needs at least one node");
        let mut last_err = String::new();
        // Route ports are picked by binding to port 0 and releasing them, so
        // another process can grab one in between: retry with fresh ports.
        for _ in 0..3 {
            match Self::try_start(n, &customize) {
                Ok(cluster) => {
                    cluster.wait_ready();
                    return cluster;
                }
                Err(e) if e.contains("address already in use") => last_err = e,
                Err(e) => panic!("cluster failed to start: {e}"),
            }
        }
        panic!("cluster failed to start: {last_err}");
    }

    fn try_start(n: usize, customize: &impl Fn(NatsServerBuilder) -> NatsServerBuilder) -> Result<NatsCluster, String> {
        let route_ports = free_ports(n);
        let mut nodes = Vec::with_capacity(n);
        for i in 0..n {
            let routes = route_ports.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, p)| *p).collect();
            let builder = customize(NatsServer::builder().jetstream().server_name(&format!("n{}", i + 1)))
                .cluster(ClusterSpec { name: CLUSTER_NAME.to_string(), port: route_ports[i], routes });
            nodes.push(builder.try_start()?);
        }
        Ok(NatsCluster { nodes })
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn node(&self, i: usize) -> &NatsServer {
        &self.nodes[i]
    }

    pub fn node_mut(&mut self, i: usize) -> &mut NatsServer {
        &mut self.nodes[i]
    }

    /// `nats://127.0.0.1:<port>` of every node (running or not), in node order.
    pub fn client_urls(&self) -> Vec<String> {
        self.nodes.iter().map(|s| s.client_url()).collect()
    }

    /// SIGKILL node `i` (its store dir and ports are kept for a restart).
    pub fn kill(&mut self, i: usize) {
        self.nodes[i].kill();
    }

    /// Graceful stop of node `i`.
    pub fn stop(&mut self, i: usize) {
        self.nodes[i].stop();
    }

    /// Starts node `i` again (stopping it first if running) on the same ports
    /// and store, then waits until the cluster is ready again.
    pub fn restart(&mut self, i: usize) {
        self.nodes[i].restart();
        self.wait_ready();
    }

    /// Index of the node that is the JetStream meta leader, if one is known.
    pub fn leader(&self) -> Option<usize> {
        let name =
            self.nodes.iter().filter(|n| n.running_pid().is_some()).find_map(|n| meta_leader(n.monitoring_port()))?;
        (0..self.nodes.len()).find(|&i| format!("n{}", i + 1) == name)
    }

    /// Waits (up to 30 s) until every running node answers `/healthz` with
    /// 200 and all of them name the same JetStream meta leader.
    pub fn wait_ready(&self) {
        let deadline = Instant::now() + READY_TIMEOUT;
        loop {
            let last = match self.check_ready() {
                Ok(()) => return,
                Err(e) => e,
            };
            if Instant::now() >= deadline {
                for (i, node) in self.nodes.iter().enumerate() {
                    eprintln!("---- node n{} log tail:\n{}", i + 1, node.log_tail(20));
                }
                panic!("cluster not ready after {READY_TIMEOUT:?}: {last}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn check_ready(&self) -> Result<(), String> {
        let mut leader: Option<String> = None;
        let mut checked = 0;
        for (i, node) in self.nodes.iter().enumerate() {
            // Skip nodes the test stopped or killed.
            let port = node.monitoring_port();
            let (status, body) = match http_get(port, "/healthz") {
                Ok(r) => r,
                Err(_) if node.running_pid().is_none() => continue,
                Err(e) => return Err(format!("n{}: {e}", i + 1)),
            };
            if status != 200 {
                return Err(format!("n{} /healthz {status}: {body}", i + 1));
            }
            let l = meta_leader(port).ok_or_else(|| format!("n{}: no meta leader", i + 1))?;
            match &leader {
                None => leader = Some(l),
                Some(prev) if *prev == l => {}
                Some(prev) => return Err(format!("leaders disagree: {prev} vs {l}")),
            }
            checked += 1;
        }
        if checked == 0 {
            return Err("no node is running".into());
        }
        // Right after the leader is killed the others still name it.
        let leader = leader.unwrap_or_default();
        let alive =
            self.nodes.iter().enumerate().any(|(i, n)| format!("n{}", i + 1) == leader && n.running_pid().is_some());
        if !alive {
            return Err(format!("meta leader {leader} is not running"));
        }
        Ok(())
    }
}

/// Server name of the JetStream meta leader as seen by the node whose
/// monitoring port is `port`.
fn meta_leader(port: u16) -> Option<String> {
    let (status, body) = http_get(port, "/jsz").ok()?;
    if status != 200 {
        return None;
    }
    let v: serde_json::Value = serde_json::from_str(&body).ok()?;
    let leader = v.get("meta_cluster")?.get("leader")?.as_str()?;
    (!leader.is_empty()).then(|| leader.to_string())
}
