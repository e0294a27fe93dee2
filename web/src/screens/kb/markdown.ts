// The knowledge base's renderer is the console's one (the playground's answers use it too).
export { renderMarkdown } from '../../format/markdown';
