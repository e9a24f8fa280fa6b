// Peer access between devices of one backend: asked of the driver once per pair, both ways, and
// said once, in a warning, for a pair whose copies the driver stages through host memory.
import type { NativeDevice } from '../native/types.js';

/** A device as peer access sees it. */
export interface Peer {
  readonly native: NativeDevice;
  readonly peers: PeerAccess;
  toString(): string;
}

/** One device's knowledge of its peers. */
export class PeerAccess {
  readonly #direct = new Map<Peer, boolean>();
  readonly #warned = new Set<Peer>();

  /**
   * Whether `self` (the device this belongs to) reaches `peer`'s memory directly, enabled both
   * ways on the first ask; `fail` hears a driver error.
   */
  between(self: Peer, peer: Peer, fail: (error: unknown) => never): boolean {
    let direct = this.#direct.get(peer);
    if (direct === undefined) {
      try {
        direct = self.native.enablePeerAccess(peer.native) && peer.native.enablePeerAccess(self.native);
      } catch (error) {
        fail(error);
      }
      this.#direct.set(peer, direct);
      peer.peers.#direct.set(self, direct);
    }
    return direct;
  }

  /** Says once per pair of devices that their copies are staged (the driver found no peer access). */
  warnStaged(self: Peer, peer: Peer): void {
    if (this.#direct.get(peer) !== false || this.#warned.has(peer)) return;
    this.#warned.add(peer);
    peer.peers.#warned.add(self);
    process.emitWarning(`Copies between ${self} and ${peer} are staged through host memory: the hardware gives them no peer access`, {
      type: 'RxcudaWarning',
      code: 'RXCUDA_PEER_STAGED',
    });
  }
}
