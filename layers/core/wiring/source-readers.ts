import {
  type CrawlBudget,
  UnavailableSourceReader,
  WebsiteSourceReader,
} from '../adapters/crawler/website-source-reader';
import { FileSourceReader } from '../adapters/files/file-source-reader';
import type { OutboundPolicy } from '../adapters/net/outbound-policy';
import { crawlerPolicy } from '../adapters/net/outbound-policy';
import type { DataSource } from '../domain/data-source';
import type { FileParser } from '../ports/file-parser.port';
import type { FileStorage } from '../ports/file-storage.port';
import type { SourceReader } from '../ports/source-reader.port';
import type { UploadedFileRepository } from '../ports/uploaded-file-repository.port';

/**
 * How a sync reads each type of data source: websites through the crawler
 * (under D35's address policy), file sources from their uploads; the
 * connector types are not available yet and say so.
 */
export function sourceReaders(options: {
  readonly outboundPolicy: Pick<OutboundPolicy, 'allowPrivateAddresses'>;
  readonly files: UploadedFileRepository;
  readonly fileStorage: FileStorage;
  readonly fileParser: FileParser;
  /** P98: the crawl budget of one sync; the crawler's defaults (1 GiB, 14 minutes) if not given. */
  readonly crawlBudget?: CrawlBudget;
}): (source: DataSource, orgId: string) => SourceReader {
  const website = new WebsiteSourceReader(
    crawlerPolicy({ allowPrivateAddresses: options.outboundPolicy.allowPrivateAddresses }),
    options.crawlBudget ?? {},
  );
  const unavailable = new UnavailableSourceReader();
  return (source, orgId) => {
    if (source.type === 'website') return website;
    if (source.type === 'file') {
      return new FileSourceReader(orgId, options.files, options.fileStorage, options.fileParser);
    }
    return unavailable;
  };
}
