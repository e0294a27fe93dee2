import { createServer, Packet } from 'dns2';

/** RFC 1035 §4.1.1: server failure. */
const SERVFAIL = 2;

/**
 * A real DNS server on loopback (UDP, dns2) answering TXT questions from a
 * table the test fills in; names it does not know get an empty NOERROR
 * answer, as a zone without that record would. `failing` answers SERVFAIL.
 */
export class TestDnsServer {
  readonly txt = new Map<string, string[]>();
  failing = false;
  private server: ReturnType<typeof createServer> | undefined;
  address = '';

  async start(): Promise<this> {
    this.server = createServer({
      udp: true,
      handle: (request, send) => {
        const response = Packet.createResponseFromRequest(request);
        const [question] = request.questions;
        if (this.failing) {
          response.header.rcode = SERVFAIL;
        } else if (question && question.type === Packet.TYPE.TXT) {
          for (const value of this.txt.get(question.name.toLowerCase()) ?? []) {
            // dns2's typings want a parsed Resource; its encoder takes this plain record.
            response.answers.push({
              name: question.name,
              type: Packet.TYPE.TXT,
              class: Packet.CLASS.IN,
              ttl: 1,
              data: value,
            } as unknown as (typeof response.answers)[number]);
          }
        }
        send(response);
      },
    });
    const addresses = await this.server.listen({ udp: { port: 0, address: '127.0.0.1' } });
    if (!addresses.udp) throw new Error('the DNS server is not listening on UDP');
    this.address = `127.0.0.1:${addresses.udp.port}`;
    return this;
  }

  async stop(): Promise<void> {
    await this.server?.close();
  }
}
