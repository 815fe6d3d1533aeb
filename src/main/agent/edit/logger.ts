// Moved to services/log (it serves every layer); kept so code importing it from here compiles.
export { clip, nullLogger, streamLogger, type Logger } from '../../services/log/logger';
